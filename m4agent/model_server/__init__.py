"""The scripted model server: every provider's wire protocol, answered from a script of turns.

It lets the real agent CLIs run end to end with no model provider: tests use it, and
users can dry-run a campaign with it (``m4agent model-server --script FILE``). See
``script`` for the script format, ``server`` for the server, ``tls`` for its CA.
"""

from m4agent.model_server.script import FAILURES, Script, Turn, Usage, load_script, parse_script
from m4agent.model_server.server import PROTOCOLS, ScriptedModelServer
from m4agent.model_server.tls import Certificates, make_certificates

__all__ = ["FAILURES", "PROTOCOLS", "Certificates", "Script", "ScriptedModelServer", "Turn", "Usage",
           "load_script", "make_certificates", "parse_script"]
