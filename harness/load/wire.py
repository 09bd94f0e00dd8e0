"""The load's view of the wire: the round trip of every CALL a station sends, and no wire log kept."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from harness.load.recorder import Recorder
from harness.transport.ws import OcppConnection


class WireMeter:
    """The transport's wire-log interface (``sent``, ``received``, ``event``, ``connections``) keeping only
    the round trip of each station's CALLs: the time from a CALL leaving to its answer arriving.

    A station has one CALL of its own in flight at a time (rpc.one_at_a_time), so a new CALL on a channel
    while one is pending means the earlier one went unanswered. Frames are read only as far as their
    message type, id, action and error code."""

    def __init__(self, recorder: Recorder, clock: Callable[[], float]):
        self.recorder = recorder
        self.clock = clock
        self.connections: deque = deque(maxlen=0)      # the transport lists connections here; none are kept
        self._pending: dict[str, tuple[str, str, float]] = {}   # channel → (CALL id, action, sent at)

    def sent(self, channel: str, text: str) -> None:
        if _message_type(text) != "2":
            return
        parts = text.split('"', 4)
        self.unanswered(channel)
        self._pending[channel] = (parts[1], parts[3], self.clock())

    def received(self, channel: str, text: str) -> None:
        kind = _message_type(text)
        pending = self._pending.get(channel)
        if kind not in ("3", "4") or pending is None:
            return
        parts = text.split('"', 4)
        if len(parts) < 2 or parts[1] != pending[0]:
            return
        del self._pending[channel]
        now = self.clock()
        self.recorder.round_trip(pending[1], now - pending[2], now)
        if kind == "4":
            code = parts[3] if len(parts) > 3 else "?"
            self.recorder.error(f"CALLERROR {code} to {pending[1]}", now, pending[1])

    def event(self, channel: str, text: str) -> None:
        """Connection events: the runner sees them itself."""

    def unanswered(self, channel: str, *, count: bool = True) -> None:
        """The pending CALL of ``channel`` (if any) will never be answered: count it (not when the load
        itself closed the connection)."""
        pending = self._pending.pop(channel, None)
        if pending is not None and count:
            self.recorder.error(f"no answer to {pending[1]}", self.clock(), pending[1])


def _message_type(text: str) -> str:
    return text.lstrip("[ \t\r\n")[:1] if isinstance(text, str) else ""


def forget_answered(connection: OcppConnection) -> None:
    """Drop a connection's answered exchanges when no CALL of ours is in flight or queued (nothing then
    waits to read one back by its position). The load keeps no wire log; the transport keeps a test's
    newest exchanges for its wire log."""
    endpoint = connection.endpoint
    if endpoint.in_flight is None and not endpoint.queued:
        history = connection.history
        for exchange in list(history):
            if exchange.answered:
                history.forget(history.index(exchange))
