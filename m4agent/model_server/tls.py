"""A throwaway certificate authority for the scripted model server.

The agent's CLIs reach a model host only through the egress proxy's CONNECT tunnels,
so they speak TLS to it and check its certificate. ``make_certificates`` makes a CA
that lives for one dry run (a day), and a server certificate it signs for the host
names the server stands in for (e.g. ``api.anthropic.com``). The CA's PEM is the one
file an agent's container must trust (``NODE_EXTRA_CA_CERTS``, ``SSL_CERT_FILE``);
nothing else in the world trusts it, and its key is never written to disk.
"""

from __future__ import annotations

import datetime
import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

CA_FILE = "ca.pem"
CHAIN_FILE = "server-chain.pem"
KEY_FILE = "server-key.pem"


@dataclass(frozen=True)
class Certificates:
    """Where the PEM files are: the CA (to trust), the server's chain and key (to serve)."""

    ca: Path
    chain: Path
    key: Path


def _name(text: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])


def make_certificates(folder: Path, hosts: Iterable[str]) -> Certificates:
    """Write a fresh CA and a server certificate for ``hosts`` (names or IPs) into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    now = datetime.datetime.now(datetime.UTC)
    start, end = now - datetime.timedelta(hours=1), now + datetime.timedelta(days=1)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_cert = (
        x509.CertificateBuilder().subject_name(_name("m4agent scripted model server CA"))
        .issuer_name(_name("m4agent scripted model server CA")).public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(start).not_valid_after(end)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                     content_commitment=False, key_encipherment=False, data_encipherment=False,
                                     key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    names: list[x509.GeneralName] = []
    for host in dict.fromkeys(["localhost", "127.0.0.1", *hosts]):
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            names.append(x509.DNSName(host))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder().subject_name(_name("m4agent scripted model server"))
        .issuer_name(ca_cert.subject).public_key(key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(start).not_valid_after(end)
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    paths = Certificates(folder / CA_FILE, folder / CHAIN_FILE, folder / KEY_FILE)
    paths.ca.write_bytes(ca_cert.public_bytes(pem))
    paths.chain.write_bytes(cert.public_bytes(pem) + ca_cert.public_bytes(pem))
    paths.key.write_bytes(key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    paths.key.chmod(0o600)
    paths.ca.chmod(0o644)
    return paths
