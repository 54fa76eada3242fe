"""The metering proxy's certificate authority: one per campaign start, trusted only in its containers.

To read what a CLI and its provider say, the egress proxy ends the CLI's TLS itself:
for each host the agent opens a tunnel to, it presents a certificate for that host
signed by this CA, and the CLI, whose container trusts the CA (its PEM is mounted and
named in ``NODE_EXTRA_CA_CERTS`` / ``SSL_CERT_FILE``), accepts it. The CA lives for one
campaign start (a day at most); its key stays in the harness's memory, and each host's
key and certificate are written once, mode 0600, to a private folder of the scratch
area that no container mounts (Python's ``ssl`` loads a chain only from files).

Toward the provider the proxy opens its own TLS connection and checks the provider's
certificate against the system's CAs, plus any CA the operator names for a dry run
(the scripted model server's, ``upstream_context``).
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import ssl
import threading
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

ALPN = ["http/1.1"]  # both sides: the proxy frames HTTP/1.1 only, so HTTP/2 is negotiated away


def _name(text: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])


class MeteringCA:
    """A throwaway CA, and the server contexts it signs per host (made on first use, then cached)."""

    def __init__(self, folder: Path, *, days: int = 1) -> None:
        self.folder = folder
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        now = datetime.datetime.now(datetime.UTC)
        self._start, self._end = now - datetime.timedelta(hours=1), now + datetime.timedelta(days=days)
        self._key = ec.generate_private_key(ec.SECP256R1())
        self._cert = (
            x509.CertificateBuilder().subject_name(_name("m4agent metering proxy CA"))
            .issuer_name(_name("m4agent metering proxy CA")).public_key(self._key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(self._start).not_valid_after(self._end)
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                         content_commitment=False, key_encipherment=False, data_encipherment=False,
                                         key_agreement=False, encipher_only=False, decipher_only=False),
                           critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(self._key.public_key()), critical=False)
            .sign(self._key, hashes.SHA256())
        )
        self.pem = self._cert.public_bytes(serialization.Encoding.PEM)
        self.ca_file = folder / "ca.pem"
        self.ca_file.write_bytes(self.pem)
        self.ca_file.chmod(0o644)
        self._contexts: dict[str, ssl.SSLContext] = {}
        self._lock = threading.Lock()  # attempts run in worker threads; each proxy loop asks from its own

    def server_context(self, host: str) -> ssl.SSLContext:
        """A TLS server context presenting a certificate for ``host`` (a name or an IP literal)."""
        with self._lock:
            context = self._contexts.get(host)
            if context is None:
                context = self._contexts[host] = self._make_context(host)
            return context

    def _make_context(self, host: str) -> ssl.SSLContext:
        key = ec.generate_private_key(ec.SECP256R1())
        try:
            name: x509.GeneralName = x509.IPAddress(ipaddress.ip_address(host))
        except ValueError:
            name = x509.DNSName(host)
        cert = (
            x509.CertificateBuilder().subject_name(_name(host)).issuer_name(self._cert.subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(self._start).not_valid_after(self._end)
            .add_extension(x509.SubjectAlternativeName([name]), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(self._key.public_key()),
                           critical=False)
            .sign(self._key, hashes.SHA256())
        )
        pem = serialization.Encoding.PEM
        path = self.folder / f"host-{len(self._contexts)}.pem"
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
            handle.write(cert.public_bytes(pem) + self.pem)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(path)
        context.set_alpn_protocols(ALPN)
        return context


def upstream_context(extra_ca: Path | None = None) -> ssl.SSLContext:
    """The client context toward a provider: the system's CAs, plus ``extra_ca`` (a dry run's server)."""
    context = ssl.create_default_context()
    if extra_ca is not None:
        context.load_verify_locations(cafile=str(extra_ca))
    context.set_alpn_protocols(ALPN)
    return context
