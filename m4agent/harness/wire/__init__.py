"""Reading the wire: what one captured HTTP exchange between an agent and its provider was.

The metering proxy captures each exchange (``Exchange``); ``meter`` says which model
call it was, with the provider's own usage, failure class and the steps (tool calls,
tool results, text), and ``credential`` whose key it carried. Pure functions over
bytes: no sockets, no files. One module per job: ``decode`` (encodings, body formats),
one reader per protocol (``anthropic``, ``openai``, ``gemini``, ``ollama``), ``provider_errors``
(failure classes), ``meter``, ``credential``.
"""

from m4agent.harness.wire.credential import credential
from m4agent.harness.wire.exchange import Exchange
from m4agent.harness.wire.meter import Metered, meter
from m4agent.harness.wire.reader import Call, Result

__all__ = ["Call", "Exchange", "Metered", "Result", "credential", "meter"]
