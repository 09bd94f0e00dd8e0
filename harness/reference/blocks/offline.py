"""Offline: a 2.x station that loses its CSMS keeps working and catches up when it is back.

Station 2.x (spec 001 moves "Offline-authorized transaction", Authorization rule 9): when its
connection closes the station connects again every ``reconnect_delay`` seconds, without booting (it
did not restart), unless a test turned that off (``reconnects``: the harness's own station in an
outage the test makes). While it is offline its TransactionEvents wait, in order and marked
``offline``, and go out once it is connected again; whoever sent one gets its answer then, and reacts
to it as to any answer (the transactions block). A StatusNotification is not sent while offline (the
status is reported again as it changes). ``online`` tells the other blocks whether the CSMS can be asked.
"""

from __future__ import annotations

import asyncio
from typing import Any

from harness.errors import HarnessError, PeerViolation
from harness.reference.common import V2X, Block, ReconnectsOnLinkEnd, store
from harness.transport.ws import CallFailed, OcppConnection

NOT_SENT_OFFLINE = frozenset({"StatusNotification"})


class OfflineStation2x(ReconnectsOnLinkEnd, Block):
    versions = V2X
    configurable = frozenset({"reconnects"})   # False: a closed connection stays closed (the test reconnects)

    _sender: asyncio.Task | None = store()

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)   # both used at every connect: started here (see common.store)
        self.links: list[OcppConnection] = []
        self._waiting: list[tuple[dict, asyncio.Future]] = []

    @property
    def online(self) -> bool:
        return self.connection is not None and not self.connection.closed

    async def connected(self, connection: OcppConnection) -> None:
        await super().connected(connection)
        self.links.append(connection)
        self.watch_link(connection)
        self._send_waiting()

    async def call(self, action: str, payload: dict[str, Any]) -> dict[str, Any]:
        if action == "TransactionEvent" and (self._waiting or not self.online):
            return await self._queued(payload)
        if action in NOT_SENT_OFFLINE and not self.online:
            return {}
        return await super().call(action, payload)

    def events_waiting(self, transaction_id: str | None = None) -> bool:
        """Whether TransactionEvents (of ``transaction_id``, or of any transaction) wait to be delivered."""
        return any(transaction_id in (None, payload["transactionInfo"]["transactionId"])
                   for payload, _ in self._waiting)

    async def _queued(self, payload: dict) -> dict:
        if not self.online:
            payload["offline"] = True
        future = asyncio.get_running_loop().create_future()
        self._waiting.append((payload, future))
        self._send_waiting()
        return await future

    def _send_waiting(self) -> None:
        if self._waiting and self.online and (self._sender is None or self._sender.done()):
            self._sender = self.background.spawn(self._send())

    async def _send(self) -> None:
        """The waiting TransactionEvents, oldest first, while the station stays online."""
        while self._waiting and self.online:
            payload, future = self._waiting[0]
            try:
                response = await super().call("TransactionEvent", payload)
            except HarnessError as error:
                if not self.online:
                    return   # offline again: it waits for the next connection
                self._waiting.pop(0)
                future.set_exception(error)
                continue
            except (PeerViolation, CallFailed) as refused:   # an answer breaking its schema (the connection
                self._waiting.pop(0)                         # records it) or a CALLERROR: its sender decides
                future.set_exception(refused)
                continue
            self._waiting.pop(0)
            future.set_result(response)
