"""What the server takes from a client at most."""

MAX_MESSAGE_BYTES = 16 * 2**20  # one JSON-RPC message's body
MAX_TASK_CHARS = 100_000  # a surehand.ask task
MAX_HEADER_LINE = 8192  # one header line; a longer one is not a header
