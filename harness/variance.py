"""Legal variance: the freedoms the texts leave a correct implementation, taken at random.

The references take one reading of every freedom; a suite written against them alone can pass them
and still fail a correct system that reads the texts another way. With ``--variance SEED`` the
embedded run's stand-ins (never the harness's own side) take, per message and per test, the
freedoms of the table ``FREEDOMS`` below; every suite must still pass (0 failed, 0 broken that
blame the SUT) and every fault of the catalogs must still be caught.

Each row names the freedom, the protocols it applies to, the text that grants it and what the
stand-in does. A row fires when it really changed what went on the wire (``Variance.took``); the
self-check (``tests/selfcheck/test_variance_run.py``) fails a modelled row that never fires. Rows
with ``modelled=False`` are freedoms the texts give that no stand-in takes yet: they say so here,
where the next one to model them will look.

This module is sans-I/O: it is handed JSON values and texts and gives back others. The OCPP
endpoint (``harness.ocpp.rpc``), the WebSocket connection (answer delays, refusals) and the
references (unsolicited messages, identifiers they make) ask it; the OCPI peer asks it for its
bodies, URLs and pages. A stand-in's variance is seeded by the run's seed and the test's node id,
so one test replays alone with the same choices.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
import string
import uuid
from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from harness.ocpp import equivalence, schemas
from harness.ocpp.errors import OCCURRENCE_SPELLINGS
from harness.ocpp.framing import CallError, Frame, dumps
from harness.ocpp.versions import OcppVersion

OCPP, OCPI, BOTH = "ocpp", "ocpi", "ocpp, ocpi"


@dataclass(frozen=True)
class Freedom:
    """One freedom a correct implementation has: where it applies, the text that grants it, what the
    stand-in does under variance."""
    id: str
    protocols: str
    source: str
    does: str
    modelled: bool = True


FREEDOMS: tuple[Freedom, ...] = (
    # ---- JSON text: every receiver parses JSON, so the form is the sender's (RFC 8259)
    Freedom("json.key_order", BOTH, "RFC 8259 §4 (an object is an unordered collection)",
            "object members in any order"),
    Freedom("json.whitespace", BOTH, "RFC 8259 §2 (insignificant whitespace around structural characters)",
            "spaces and line breaks between tokens"),
    Freedom("json.escapes", BOTH, "RFC 8259 §7 (any character may be escaped as \\uXXXX)",
            "plain characters of strings written as \\u escapes"),
    Freedom("json.number_form", BOTH, "RFC 8259 §6; OCPP JSON schemas (type number)",
            "an integral value of a number-typed field written with a fraction (1.0 for 1)"),
    # ---- OCPP
    Freedom("ocpp.message_id", OCPP, "spec 002 Framing 2 (message id: any unique string of at most 36 "
            "characters); facts ocpp-j.md", "CALL ids as UUIDs in either case, counters, or any printable "
            "text of 1 to 36 characters"),
    Freedom("ocpp.id_token_case", OCPP, "spec 001 IdTokenType (idToken case-insensitive); spec 002 Notation "
            "and Identifiers 8 (IdToken is CiString(20))", "idToken / idTag values in another case"),
    Freedom("ocpp.cistring_case", OCPP, "spec 002 Notation (CiString); OCPP 1.6 DataTransfer vendorId and "
            "messageId, configuration key names are CiString", "1.6 vendorId, messageId and configuration key "
            "names in another case (harness.ocpp.equivalence)"),
    Freedom("ocpp.timestamp_form", OCPP, "OCPP 2.0.1/2.1 schemas (format date-time, RFC 3339 §5.6); spec 002 "
            "rule 9 (ISO 8601, fractional seconds and offsets)", "the same instant with Z or +00:00 and 0 to 6 "
            "fractional digits"),
    Freedom("ocpp.custom_data", OCPP, "OCPP 2.0.1/2.1 schemas (customData on every class, CustomDataType "
            "open)", "a customData object with a vendorId where the schema admits one"),
    Freedom("ocpp.status_info", OCPP, "OCPP 2.0.1/2.1 schemas (StatusInfoType optional beside every status); "
            "spec 001 StatusInfoType", "a statusInfo with a reason code beside a status"),
    Freedom("ocpp.error_text", OCPP, "spec 002 Framing (CALLERROR ErrorDescription and ErrorDetails: free text "
            "and any object); OCPP 2.0.1 part 4 §4.2.3", "a CALLERROR's description empty or other text, its "
            "details an object with members"),
    Freedom("ocpp.occurrence_spelling", OCPP, "facts ocpp-j.md (OccurenceConstraintViolation in the 1.6 and "
            "2.0.1 texts, OccurrenceConstraintViolation in the errata and schemas: either is accepted)",
            "the occurrence code in either spelling"),
    Freedom("ocpp.answer_delay", OCPP, "spec 002 Framing 4; OCPP 2.0.1 part 4 §4.1.1 (an answer within the "
            "call timeout)", "answers after a delay of up to half the call timeout"),
    Freedom("ocpp.unsolicited_heartbeat", OCPP, "spec 002 Heartbeat (a charge point may send a heartbeat at any "
            "time once accepted); OCPP 2.0.1 B05", "a Heartbeat between a test's steps, once the station "
            "is accepted"),
    Freedom("ocpp.transaction_id", OCPP, "OCPP 2.0.1/2.1 TransactionType (transactionId: any string of at most "
            "36 characters); spec 002 StartTransaction.conf (transactionId: any integer)",
            "2.x transaction ids as UUIDs, counters or other text; 1.6 ids as any integer"),
    Freedom("actuator.unsupported", BOTH, "design.md Actuators (HTTP 501: the SUT cannot do this, the test "
            "is not applicable)", "an actuator action of the test answered as unsupported (501)"),
    Freedom("ocpp.refuse_optional", OCPP, "OCPP 2.0.1 part 4 §4.2.3 (NotSupported, NotImplemented); spec 001 and "
            "002 feature profiles", "a CALL of a feature the profile does not declare answered NotSupported: "
            "not taken at random, since the reference profile declares every feature; the legal variants of "
            "tests/faults/legal_variants.py play it with a profile that leaves the feature out", modelled=False),
    Freedom("ocpp.unsolicited_reports", OCPP, "OCPP 2.0.1 B/G/J blocks (StatusNotification, MeterValues, "
            "NotifyEvent at any time)", "StatusNotification, MeterValues or NotifyEvent between steps",
            modelled=False),
    Freedom("ocpp.message_order", OCPP, "spec 001 and 002 leave the order of independent reports open (one "
            "StatusNotification per connector after boot)", "independent reports in another order",
            modelled=False),
)
ROWS = {freedom.id: freedom for freedom in FREEDOMS}
# actions that undo what a test did at the SUT: refusing them would leave the SUT changed
UNDOING_ACTIONS = frozenset({"unplug", "set_registration", "release_external_limit", "clear_fault",
                             "repair_local_list_storage", "cancel_payment", "unregister"})

CUSTOM_VENDOR = "org.openchargealliance.variance"
REASON_CODES = ("NoError", "Accepted", "OK", "none")
ID_CHARACTERS = string.ascii_letters + string.digits + "-_.:/+=@!*~"


class Variance:
    """The freedoms one stand-in takes in one test: seeded by the run's seed and the test's node id."""

    def __init__(self, seed: int, salt: str = "", *, chance: float = 0.5, without: Collection[str] = ()):
        self.seed = seed
        self.without = frozenset(without)   # rows this run leaves alone (--variance-skip)
        digest = hashlib.sha256(f"{seed}\x00{salt}".encode()).digest()
        self.rng = random.Random(int.from_bytes(digest[:8], "big"))
        self.chance = chance
        self._ids: set[str] = set()
        self._counter = self.rng.randrange(0, 10_000)
        self.refused_actions: dict[str, bool] = {}   # per action asked for: whether the actuator refuses it
        self.taken: Counter[str] = Counter()   # the rows that changed the wire, and how often

    # ------------------------------------------------------------ bookkeeping
    def allows(self, row: str) -> bool:
        return ROWS[row].id not in self.without

    def draw(self, probability: float | None = None) -> bool:
        return self.rng.random() < (self.chance if probability is None else probability)

    def took(self, row: str) -> None:
        """``row`` changed what went on the wire."""
        self.taken[ROWS[row].id] += 1

    # ------------------------------------------------------------ JSON text
    def render(self, value: Any) -> str:
        """``value`` as JSON text in a form chosen at random: member order, whitespace, escapes."""
        style = _Style(self)
        text = style.value(value)
        if style.spaced:
            self.took("json.whitespace")
        if style.reordered:
            self.took("json.key_order")
        if style.escaped:
            self.took("json.escapes")
        return text

    def call_error(self, error: CallError) -> CallError:
        """A CALLERROR with the freedoms of its free texts and of the occurrence code's spelling."""
        code, description, details = error.code, error.description, error.details
        if code in OCCURRENCE_SPELLINGS and self.draw():
            code = self.rng.choice(sorted(OCCURRENCE_SPELLINGS))
            if code != error.code:
                self.took("ocpp.occurrence_spelling")
        if self.draw(0.4):
            description = self.rng.choice(("", "refused", description.upper()))
            details = {"reason": self.rng.choice(("variance", "n/a"))} if self.draw() else details
            if (description, details) != (error.description, error.details):
                self.took("ocpp.error_text")
        return dataclasses.replace(error, code=code, description=description, details=details)

    def frame_text(self, frame: Frame) -> str:
        """An OCPP-J frame's text in a form chosen at random."""
        return self.render(frame.to_list())

    # ------------------------------------------------------------ OCPP values
    def ocpp_payload(self, version: OcppVersion, action: str, direction: schemas.Direction,
                     payload: dict[str, Any]) -> dict[str, Any]:
        """``payload`` with the value freedoms its schema admits taken at random (a copy)."""
        root = schemas.schema(version, action, direction)
        return self._vary(root, root, payload, version, direction, None)

    def _vary(self, root: dict, schema: dict | None, value: Any, version: OcppVersion, direction: str,
              key: str | None, siblings: Iterable[str] = ()) -> Any:
        schema = schemas.resolved(root, schema or {})
        if isinstance(value, dict):
            properties = schema.get("properties", {})
            varied = {k: self._vary(root, properties.get(k), v, version, direction, k, value) for k, v in value.items()}
            self._admitted(varied, properties, version, direction)
            return varied
        if isinstance(value, list):
            return [self._vary(root, schema.get("items"), item, version, direction, key, siblings) for item in value]
        if isinstance(value, str):
            if schema.get("format") == "date-time":
                return self.timestamp(value)
            if equivalence.case_insensitive(version, key, siblings):
                return self._case(value, "ocpp.cistring_case" if version is OcppVersion.V16 and key not in
                                  ("idTag", "parentIdTag") else "ocpp.id_token_case")
            return value
        if type(value) is int and _types(schema) == {"number"} and self.draw():
            self.took("json.number_form")
            return float(value)
        return value

    def _admitted(self, varied: dict, properties: dict, version: OcppVersion, direction: str) -> None:
        """Optional members the schema admits, added at random."""
        if version is OcppVersion.V16:
            return
        if "customData" in properties and "customData" not in varied and self.draw(0.3):
            varied["customData"] = {"vendorId": CUSTOM_VENDOR}
            self.took("ocpp.custom_data")
        if direction == "response" and "statusInfo" in properties and "statusInfo" not in varied \
                and "status" in varied and self.draw(0.3):
            varied["statusInfo"] = {"reasonCode": self.rng.choice(REASON_CODES)}
            self.took("ocpp.status_info")

    def _case(self, value: Any, row: str) -> Any:
        """A case-insensitive text in another case, at random."""
        if not isinstance(value, str) or not self.draw():
            return value
        styles = (str.upper, str.lower, str.swapcase,
                  lambda text: "".join(c.upper() if self.rng.random() < 0.5 else c.lower() for c in text))
        changed = self.rng.choice(styles)(value)
        if changed != value:
            self.took(row)
        return changed

    def timestamp(self, value: str) -> str:
        """The same instant in another legal form: Z or +00:00, 0 to 6 fractional digits (never fewer
        than the instant needs)."""
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            return value
        if moment.utcoffset() is None or moment.utcoffset().total_seconds() != 0 or not self.draw():
            return value
        micro = f"{moment.microsecond:06d}"
        digits = self.rng.randint(len(micro.rstrip("0")) if moment.microsecond else 0, 6)
        text = moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S") + \
            (f".{micro[:digits]}" if digits else "") + self.rng.choice(("Z", "+00:00"))
        if text != value:
            self.took("ocpp.timestamp_form")
        return text

    # ------------------------------------------------------------ OCPP identifiers and timing
    def message_id(self) -> str:
        """A new CALL id of a legal form, unique for this stand-in."""
        while True:
            form = self.rng.randrange(4)
            if form == 0:
                candidate = str(uuid.UUID(int=self.rng.getrandbits(128), version=4))
            elif form == 1:
                candidate = str(uuid.UUID(int=self.rng.getrandbits(128), version=4)).upper()
            elif form == 2:
                self._counter += 1
                candidate = str(self._counter)
            else:
                candidate = "".join(self.rng.choice(ID_CHARACTERS + " \"\\")
                                    for _ in range(self.rng.randint(1, 36)))
            if candidate not in self._ids and candidate != "-1":
                self._ids.add(candidate)
                if form != 0:
                    self.took("ocpp.message_id")
                return candidate

    def transaction_id(self, default: str) -> str:
        """A 2.x transaction id of another legal form (at most 36 characters), unique for this stand-in."""
        if not self.draw():
            return default
        while True:
            form = self.rng.randrange(3)
            if form == 0:
                self._counter += 1
                candidate = str(self._counter)
            elif form == 1:
                candidate = str(uuid.UUID(int=self.rng.getrandbits(128), version=4)).upper()
            else:
                candidate = "".join(self.rng.choice(ID_CHARACTERS) for _ in range(self.rng.randint(1, 36)))
            if candidate not in self._ids:
                self._ids.add(candidate)
                self.took("ocpp.transaction_id")
                return candidate

    def transaction_number(self, default: int, taken: Collection[int]) -> int:
        """A 1.6 transaction id of another legal value (any integer the schema admits) not in ``taken``."""
        if not self.draw():
            return default
        while True:
            candidate = self.rng.choice((0, -self.rng.randrange(1, 2 ** 31), self.rng.randrange(2 ** 31)))
            if candidate not in taken:
                self.took("ocpp.transaction_id")
                return candidate

    def answer_delay(self, bound: float) -> float:
        """How long to wait before answering a CALL whose sender waits ``bound`` seconds."""
        if not self.draw(0.3):
            return 0.0
        self.took("ocpp.answer_delay")
        return self.rng.uniform(0.0, bound / 2)

    def pause(self) -> float:
        """Seconds until the next unsolicited message."""
        return self.rng.uniform(2.0, 90.0)

    def refuses_action(self, action: str) -> bool:
        """Whether the stand-in's actuator answers ``action`` as unsupported in this test: decided the first
        time the action is asked for and kept (an adapter does an action or does not), never for an action
        that undoes what a test did."""
        if action in UNDOING_ACTIONS or not self.allows("actuator.unsupported"):
            return False
        if action not in self.refused_actions:
            self.refused_actions[action] = self.rng.random() < 0.04
        if self.refused_actions[action]:
            self.took("actuator.unsupported")
            return True
        return False



def _types(schema: dict) -> set[str]:
    kind = schema.get("type")
    return {kind} if isinstance(kind, str) else set(kind or ())


class _Style:
    """One text's form: separators, member order and escapes, chosen once per text."""

    ITEM = (",", ", ", ",\n", " ,\t")
    MEMBER = (":", ": ", " : ", ":\n ")

    def __init__(self, variance: Variance):
        rng = variance.rng
        self.rng = rng
        self.shuffle = variance.draw()
        self.escape = variance.draw(0.3)
        self.item = rng.choice(self.ITEM) if variance.draw() else ","
        self.member = rng.choice(self.MEMBER) if variance.draw() else ":"
        self.edge = rng.choice(("", " ", "\n", "\t ")) if variance.draw(0.2) else ""
        self.spaced = self.item != "," or self.member != ":" or bool(self.edge)
        self.reordered = self.escaped = False

    def value(self, value: Any, top: bool = True) -> str:
        text = self._value(value)
        return f"{self.edge}{text}{self.edge}" if top else text

    def _value(self, value: Any) -> str:
        if isinstance(value, dict):
            keys = list(value)
            if self.shuffle and len(keys) > 1:
                shuffled = keys[:]
                self.rng.shuffle(shuffled)
                self.reordered |= shuffled != keys
                keys = shuffled
            return "{" + self.item.join(self._string(k) + self.member + self._value(value[k]) for k in keys) + "}"
        if isinstance(value, list):
            return "[" + self.item.join(self._value(item) for item in value) + "]"
        if isinstance(value, str):
            return self._string(value)
        return dumps(value)

    def _string(self, text: str) -> str:
        if not self.escape:
            return _quoted(text)
        out = []
        for character in text:
            if character.isascii() and character.isalnum() and self.rng.random() < 0.3:
                out.append(f"\\u{ord(character):04{self.rng.choice('xX')}}")
                self.escaped = True
            else:
                out.append(_quoted(character)[1:-1])
        return '"' + "".join(out) + '"'


def _quoted(text: str) -> str:
    """A JSON string; a lone surrogate (legal in JSON text, not in UTF-8) is written as its escape."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(text, ensure_ascii=True)
    return dumps(text)


