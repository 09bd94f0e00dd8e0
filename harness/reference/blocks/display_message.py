"""Display messages (2.x, functional block O): the CSMS has a message shown on the station's display.

Station: SetDisplayMessage stores the message under its id (a message with an id already stored replaces
it) and answers Accepted for a format and priority it shows (every MessageFormatEnumType value but QRCODE,
which this display cannot draw: NotSupportedMessageFormat; every priority); ClearDisplayMessage removes a
message it holds (Accepted), else Unknown. CSMS: the operator's message is an actuator action; what it
leaves at a station under test is undone with ClearDisplayMessage of its id.
"""

from __future__ import annotations

from typing import Any

from harness.reference.common import V2X, Block, Undo, store

SHOWN_FORMATS = frozenset({"ASCII", "HTML", "URI", "UTF8"})


class DisplayMessageStation2x(Block):
    versions = V2X

    display_messages: dict[int, dict] = store(dict)   # message id → MessageInfoType

    def on_SetDisplayMessage(self, _: None, payload: dict) -> dict:
        message = payload["message"]
        if message["message"]["format"] not in SHOWN_FORMATS:
            return {"status": "NotSupportedMessageFormat"}
        self.display_messages[message["id"]] = message
        return {"status": "Accepted"}

    def on_ClearDisplayMessage(self, _: None, payload: dict) -> dict:
        return {"status": "Accepted" if self.display_messages.pop(payload["id"], None) is not None else "Unknown"}


class DisplayMessageCsms2x(Block):
    versions = V2X

    async def act_set_display_message(self, message: dict, station: str | None = None) -> None:
        self.send(station, "SetDisplayMessage", {"message": message})

    async def undo_SetDisplayMessage(self, payload: dict, link: Any) -> Undo:
        clear = {"id": payload["message"]["id"]}
        return Undo(f"clear the display message {clear}", lambda now: now.call_exchange("ClearDisplayMessage", clear))
