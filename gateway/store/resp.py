"""Commands in the Redis protocol (RESP), encoded as redis-py encodes them.

Shared by :func:`gateway.store.connection.round_trip` and the handshake of
:mod:`gateway.store.lean_connections`.
"""

from __future__ import annotations

from collections.abc import Sequence

from redis.typing import EncodableT

__all__ = ["pack_commands"]


def pack_commands(commands: Sequence[Sequence[EncodableT]]) -> bytes:
    """``commands`` in the Redis protocol (RESP), as one buffer.

    What redis-py's ``pack_commands`` writes for the same arguments (a test
    compares them), in a fraction of its CPU: a table commit carries the
    state's JSON and every event, and redis-py encodes argument by argument
    through several layers. Text is UTF-8, an int in decimal, a float by
    ``repr``, as redis-py does; anything else (a bool, None) is refused.
    """
    parts: list[bytes] = []
    for command in commands:
        parts.append(b"*%d\r\n" % len(command))
        for argument in command:
            if isinstance(argument, bytes):
                data = argument
            elif isinstance(argument, str):
                data = argument.encode()
            elif isinstance(argument, bool):
                raise TypeError("Redis arguments cannot be bools")
            elif isinstance(argument, int):
                data = b"%d" % argument
            elif isinstance(argument, float):
                data = repr(argument).encode()
            else:
                raise TypeError(f"not a Redis argument: {type(argument).__name__}")
            parts.append(b"$%d\r\n%b\r\n" % (len(data), data))
    return b"".join(parts)
