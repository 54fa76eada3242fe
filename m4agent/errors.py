"""The one exception type the CLI turns into a clear, single-line error."""


class M4AgentError(Exception):
    """A user-facing error: the message says what went wrong and what to do next."""
