"""1.6 dialogues of local authorization shared by CACHE16 and LOCALLIST16, played from either side: an
idTag presented while the charge point is offline, and what it sends once it is back.
"""

from __future__ import annotations

from harness.arena.ocpp import OcppArena
from harness.roles import CS
from harness.rules import Rule
from harness.verdict import require

NOTICE = 0.5   # seconds for the charge point to act on what changed (the link down, a card, a cable)


async def presented_offline(arena: OcppArena, id_tag: str, connector_id: int, *, reconnects: Rule,
                            also: tuple[tuple[str, int], ...] = ()) -> None:
    """The link is cut; ``id_tag`` is presented at ``connector_id`` and the cable plugged in (and so for
    every further (idTag, connector) of ``also``); the link is restored and the charge point connects
    again (``reconnects`` breaks when it does not)."""
    before = arena.connections()
    await arena.cut()
    await arena.elapse(NOTICE)
    for tag, connector in ((id_tag, connector_id), *also):
        await arena.act(CS, "present_id_tag", id_tag=tag, connector_id=connector)
        await arena.act(CS, "plug_in", connector_id=connector)
    await arena.elapse(NOTICE)
    await arena.restore()
    if arena.is_sut(CS):
        connection = await arena.reconnected(before)
        require(connection is not None, reconnects, "the charge point did not connect again once the link was back",
                expected="a connection", actual=f"refused: {arena.harness_csms.refused()[-3:]}")

