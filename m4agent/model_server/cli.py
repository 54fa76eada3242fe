"""``m4agent model-server``: serve a script of turns as every model provider, to dry-run a campaign.

Wiring only: the server is ``server.ScriptedModelServer``. It prints what a campaign
needs to use it: the CA file its agents must trust (agent option ``ca_cert``) and the
routes that send the providers' host names to it (``campaign run --route``).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from m4agent.errors import M4AgentError
from m4agent.model_server.script import load_script
from m4agent.model_server.server import ScriptedModelServer
from m4agent.model_server.tls import make_certificates

DEFAULT_HOSTS = "api.anthropic.com,api.openai.com,generativelanguage.googleapis.com,ollama.local"


def parse_route(text: str) -> tuple[str, str, int]:
    """``HOST=ADDRESS:PORT`` as a route of the egress policy."""
    host, sep, target = text.partition("=")
    address, colon, port = target.rpartition(":")
    if not sep or not colon or not host or not address or not port.isdigit():
        raise M4AgentError(f"route {text!r} is not HOST=ADDRESS:PORT (e.g. api.anthropic.com=127.0.0.1:8443)")
    return host.strip(), address.strip(), int(port)


def model_server(
    script: Annotated[Path, typer.Option("--script", help="The script of turns (TOML or .json).")],
    port: Annotated[int, typer.Option("--port", help="Port to listen on (0: any free port).")] = 8443,
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    hosts: Annotated[str, typer.Option("--hosts", help="Comma-separated host names it stands in for "
                                       "(its certificate names them).")] = DEFAULT_HOSTS,
    certs: Annotated[Path, typer.Option("--certs", help="Folder for the throwaway CA and the server's "
                                        "certificate.")] = Path("model-server-certs"),
    log: Annotated[Path | None, typer.Option("--log", help="Append every request as a JSON line here.",
                                             show_default=False)] = None,
) -> None:
    """Serve a script of turns as the Anthropic, OpenAI, Gemini and Ollama APIs (TLS), until Ctrl-C."""
    names = [name.strip() for name in hosts.split(",") if name.strip()]
    parsed = load_script(script)
    certificates = make_certificates(certs, names)
    server = ScriptedModelServer(parsed, host=host, port=port, certificates=certificates, log=log).start()
    routes = " ".join(f"--route {name}={host}:{server.port}" for name in names)
    typer.echo(f"scripted model server on {server.url} ({len(parsed.turns)} turns from {script})\n"
               f"give its CA to the harness in each agent's options: options = {{ ca_cert = \"{certificates.ca.resolve()}\" }}\n"
               f"route the providers to it:  m4agent campaign run --dir DIR {routes}\n"
               "Ctrl-C stops it.")
    try:
        while True:
            time.sleep(3600)
    finally:
        server.close()
