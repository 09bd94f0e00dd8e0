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
and each call that draws draws from a stream of its own (``_own_draws``), so one test replays alone
with the same choices whatever the values around them.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import random
import string
import uuid
from collections import Counter
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Concatenate, ParamSpec, TypeVar

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
    Freedom("ocpp.omit_default", OCPP, "spec 002 SampledValue (context, format, measurand, location, unit: each "
            "with its default when absent); OCPP 2.0.1 SampledValueType and UnitOfMeasureType defaults",
            "a sampled value's member equal to its default left out"),
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
    Freedom("ocpp.unsolicited_read", OCPP, "spec 002 Core (GetConfiguration, CS to CP) and RegistrationStatus "
            "(the CS may query the CP); OCPP 2.0.1 B06 (GetVariables: the CSMS reads a variable when it likes)",
            "a GetConfiguration (1.6) or GetVariables (2.x) of the heartbeat interval between a test's steps, "
            "once the station is accepted"),
    Freedom("ocpp.transaction_id", OCPP, "OCPP 2.0.1/2.1 TransactionType (transactionId: any string of at most "
            "36 characters); spec 002 StartTransaction.conf (transactionId: any integer)",
            "2.x transaction ids as UUIDs, counters or other text; 1.6 ids as any integer"),
    Freedom("actuator.unsupported", BOTH, "design.md Actuators (HTTP 501: the SUT cannot do this, the test "
            "is not applicable)", "an actuator action of the test answered as unsupported (501)"),
    Freedom("ocpp.refuse_optional", OCPP, "OCPP 2.0.1 part 4 §4.2.3 (NotSupported, NotImplemented); spec 001 and "
            "002 feature profiles", "a CALL of a feature the profile does not declare answered NotSupported: "
            "not taken at random, since the reference profile declares every feature; the legal variants of "
            "tests/faults/legal_variants.py play it with a profile that leaves the feature out", modelled=False),
    # ---- OCPI (the stand-in playing the SUT's platform, CPO or eMSP)
    Freedom("ocpi.id_case", OCPI, "spec 000 Notation (CiString = case-insensitive string); Session, Location, "
            "EVSE, Connector, Parking and CredentialsRole tables (country_code, party_id, id, uid, location_id, "
            "evse_uid, connector_id, evse_id are CiStrings); facts ocpi-wire.md (compare case-insensitively, "
            "echo as sent)", "a CPO stand-in stores its own ids in another case, one spelling per id for the "
            "whole test, in its bodies, its credentials roles and the URLs it pushes to; never a value the peer "
            "sent (cdr_token, authorization_reference, what was pushed to it)"),
    Freedom("ocpi.null_optional", OCPI, "spec 000 Endpoints, Pagination (unspecified fields in returned objects "
            "count as null); schemas/ocpi (members outside required)", "optional members a whole object "
            "(GET data, PUT body) lacks written as null; never in a PATCH (there null could read as a removal)"),
    Freedom("ocpi.omit_optional", OCPI, "spec 000 Notation (Card. * = list of zero or more); Location "
            "charging_when_closed (default true), ChargingPreferences discharge_allowed (default false); Sessions "
            "Receiver PUT (an omitted or empty charging_periods both remove the periods)", "in the stand-in's own "
            "whole objects an empty * list and a member equal to its stated default left out; nothing whose "
            "absence means something else (postal_code, a PATCH's members)"),
    Freedom("ocpi.timestamp_form", OCPI, "OCPI 2.2.1 types DateTime (RFC 3339 in UTC, fractional seconds "
            "allowed); spec 000 Notation; facts ocpi-wire.md (Z advised, +00:00 and fractions to be accepted)",
            "the DateTimes of the stand-in's own objects and envelopes in one form per platform: Z or +00:00, "
            "0 to 6 fractional digits, the same instant"),
    Freedom("ocpi.trailing_slash", OCPI, "spec 000 Endpoints (URLs are exchanged in version details; the form is "
            "the publisher's); RFC 9110 §15.4.8 (307 keeps method and body); facts ocpi-wire.md traps (a 307 "
            "for a missing trailing slash)", "versions, details and module URLs published with a trailing slash, "
            "and a request to the other form of such a URL answered 307 to the published one"),
    Freedom("ocpi.page_size", OCPI, "OCPI 2.2.1 transport and format §4.1.4 (the server may cap limit); facts "
            "ocpi-wire.md Pagination", "list pages capped below what was asked, with X-Limit the cap, X-Total-Count "
            "and the next Link as due"),
    Freedom("ocpi.link_form", OCPI, "RFC 8288 §3 (link-param = token BWS [\"=\" BWS (token / quoted-string)], "
            "relation types compare ignoring case, several link-values in one field); RFC 9110 §5.6.1",
            "the next-page Link with rel unquoted or in upper case, extra parameters, whitespace around ';' and "
            "'=', and other link-values (rel=\"first\") beside it"),
    Freedom("ocpi.header_case", OCPI, "RFC 9110 §5.1 (field names are case-insensitive); facts ocpi-wire.md "
            "(header names are case-insensitive)", "the names of the headers the stand-in writes in another case"),
    Freedom("ocpi.module_absent", OCPI, "spec 000 What the service does 2-3 (only credentials is required; a "
            "functional module is listed in version details when implemented)", "a functional module left out "
            "of the version details: its tests not applicable", modelled=False),
    Freedom("ocpi.echo_timestamp_form", OCPI, "OCPI 2.2.1 types DateTime (a value, not a text to echo)",
            "DateTimes of objects pushed to the stand-in served back in its own form", modelled=False),
    Freedom("ocpp.unsolicited_reports", OCPP, "OCPP 2.0.1 B/G/J blocks (StatusNotification, MeterValues, "
            "NotifyEvent at any time)", "StatusNotification, MeterValues or NotifyEvent between steps",
            modelled=False),
    Freedom("ocpp.message_order", OCPP, "spec 001 and 002 leave the order of independent reports open (one "
            "StatusNotification per connector after boot)", "the StatusNotifications after a boot in any order"),
    Freedom("ocpp.subprotocol_offer", OCPP, "spec 002 Connection 4 and Versioning 2; facts ocpp-j.md (a client may "
            "offer several subprotocols in its order of preference; the server picks one)", "the station offers "
            "other OCPP subprotocols after its own"),
)
ROWS = {freedom.id: freedom for freedom in FREEDOMS}
# actions that undo what a test did at the SUT: refusing them would leave the SUT changed
UNDOING_ACTIONS = frozenset({"unplug", "set_registration", "release_external_limit", "clear_fault",
                             "repair_local_list_storage", "cancel_payment", "unregister"})

# OCPI: the CiString members that name the stand-in's own objects (its party, Locations, EVSEs,
# Connectors, Parking places, Sessions), and the members that hold what the peer gave (echoed as sent)
OWN_IDS = frozenset({"country_code", "party_id", "id", "uid", "location_id", "evse_uid", "connector_id", "evse_id",
                     "parking_id"})
ECHOED = frozenset({"cdr_token", "authorization_reference", "publish_allowed_to"})
# OCPI members whose absence the text gives a meaning: the stated default
DEFAULTS = {("location", "charging_when_closed"): True, ("charging_preferences", "discharge_allowed"): False}
LINK_PARAMS = ('title="next page"', 'type="application/json"', "hreflang=en", 'title="Page"')
_MISSING = object()

CUSTOM_VENDOR = "org.openchargealliance.variance"
REASON_CODES = ("NoError", "Accepted", "OK", "none")
ID_CHARACTERS = string.ascii_letters + string.digits + "-_.:/+=@!*~"


P = ParamSpec("P")
R = TypeVar("R")


def _own_draws(method: Callable[Concatenate[Variance, P], R]) -> Callable[Concatenate[Variance, P], R]:
    """Each call of ``method`` draws from a stream of its own, made from the seed, the salt, the method's name and
    how many times it was called before: what one call draws (as many times as its value has characters, members,
    digits) never shifts what another draws, a call made inside it included, nor does the order in which the
    stand-in's tasks call them. A test replays alone with the same choices, whatever time stamps or ids the harness
    made around them."""
    site = method.__name__

    @functools.wraps(method)
    def drawing(self: Variance, /, *args: P.args, **kwargs: P.kwargs) -> R:
        number = self._calls[site] = self._calls.get(site, 0) + 1
        outer = self._site, self._rng
        self._site, self._rng = f"{site}\x00{number}", None   # made on the call's first draw (``rng``)
        try:
            return method(self, *args, **kwargs)
        finally:
            self._site, self._rng = outer
    return drawing


class Variance:
    """The freedoms one stand-in takes in one test: seeded by the run's seed and the test's node id."""

    def __init__(self, seed: int, salt: str = "", *, chance: float = 0.5, without: Collection[str] = ()):
        self.seed = seed
        self.salt = salt
        self.without = frozenset(without)   # rows this run leaves alone (--variance-skip)
        self._calls: dict[str, int] = {}    # per drawing method: how many times it was called (``_own_draws``)
        self._site = ""                     # the stream the draws come from now, and that stream once made
        self._rng: random.Random | None = None
        self.chance = chance
        self._ids: set[str] = set()
        self._counter = self.rng.randrange(0, 10_000)
        self.actions_decided: dict[str, bool] = {}   # per actuator action: refused in this test?
        self._spelled: dict[str, str] = {}           # OCPI ids: one spelling each for the whole test
        self._time_form: tuple[str, int] | None = None
        self._page_cap: int | None = None
        self._slashed: bool | None = None
        self.taken: Counter[str] = Counter()   # the rows that changed the wire, and how often

    # ------------------------------------------------------------ bookkeeping
    @property
    def rng(self) -> random.Random:
        """The current call's stream, made when it first draws: most calls of a test draw nothing (a time form,
        a page cap, an id's spelling drawn once before)."""
        if self._rng is None:
            digest = hashlib.sha256(f"{self.seed}\x00{self.salt}\x00{self._site}".encode()).digest()
            self._rng = random.Random(int.from_bytes(digest[:8], "big"))
        return self._rng

    def allows(self, row: str) -> bool:
        return ROWS[row].id not in self.without

    def draw(self, probability: float | None = None) -> bool:
        return self.rng.random() < (self.chance if probability is None else probability)

    def took(self, row: str) -> None:
        """``row`` changed what went on the wire."""
        self.taken[ROWS[row].id] += 1

    # ------------------------------------------------------------ JSON text
    @_own_draws
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

    @_own_draws
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

    @_own_draws
    def frame_text(self, frame: Frame) -> str:
        """An OCPP-J frame's text in a form chosen at random."""
        return self.render(frame.to_list())

    # ------------------------------------------------------------ OCPP values
    @_own_draws
    def ocpp_payload(self, version: OcppVersion, action: str, direction: schemas.Direction,
                     payload: dict[str, Any]) -> dict[str, Any]:
        """``payload`` with the value freedoms its schema admits taken at random (a copy)."""
        root = schemas.schema(version, action, direction)
        varied: dict[str, Any] = self._vary(root, root, payload, version, direction, None)
        return varied

    def _vary(self, root: dict[str, Any], schema: dict[str, Any] | None, value: Any, version: OcppVersion, direction: str,
              key: str | None, siblings: Iterable[str] = ()) -> Any:
        schema = schemas.resolved(root, schema or {})
        if isinstance(value, dict):
            properties = schema.get("properties", {})
            varied = {k: self._vary(root, properties.get(k), v, version, direction, k, value) for k, v in value.items()
                      if not self._default_left_out(k, v)}
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

    def _default_left_out(self, key: str, value: Any) -> bool:
        """A meter value's member equal to its default, left out at random (``equivalence.DEFAULTS``)."""
        if key in equivalence.DEFAULTS and value == equivalence.DEFAULTS[key] and self.draw(0.3):
            self.took("ocpp.omit_default")
            return True
        return False

    def _admitted(self, varied: dict[str, Any], properties: dict[str, Any], version: OcppVersion, direction: str) -> None:
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

    @_own_draws
    def timestamp(self, value: str) -> str:
        """The same instant in another legal form: Z or +00:00, 0 to 6 fractional digits (never fewer
        than the instant needs)."""
        moment = _utc(value)
        if moment is None or not self.draw():
            return value
        text = _written(moment, self.rng.randint(_digits_needed(moment), 6), self.rng.choice(("Z", "+00:00")))
        if text != value:
            self.took("ocpp.timestamp_form")
        return text

    # ------------------------------------------------------------ OCPP identifiers and timing
    @_own_draws
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

    @_own_draws
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

    @_own_draws
    def transaction_number(self, default: int, taken: Collection[int]) -> int:
        """A 1.6 transaction id of another legal value (any integer the schema admits) not in ``taken``."""
        if not self.draw():
            return default
        while True:
            candidate = self.rng.choice((0, -self.rng.randrange(1, 2 ** 31), self.rng.randrange(2 ** 31)))
            if candidate not in taken:
                self.took("ocpp.transaction_id")
                return candidate

    @_own_draws
    def answer_delay(self, bound: float) -> float:
        """How long to wait before answering a CALL whose sender waits ``bound`` seconds."""
        if not self.draw(0.3):
            return 0.0
        self.took("ocpp.answer_delay")
        return self.rng.uniform(0.0, bound / 2)

    @_own_draws
    def any_order(self, reports: list[Any]) -> list[Any]:
        """``reports`` in an order chosen at random."""
        shuffled = list(reports)
        if self.draw():
            self.rng.shuffle(shuffled)
            if shuffled != list(reports):
                self.took("ocpp.message_order")
        return shuffled

    @_own_draws
    def offer(self, version: OcppVersion) -> list[str]:
        """The subprotocols a station of ``version`` offers: its own first, others (known or not) after it."""
        offered = [version.subprotocol]
        if self.draw(0.3):
            others = [v.subprotocol for v in OcppVersion if v is not version] + ["ocpp2.0", "ocpp9.9"]
            offered += self.rng.sample(others, self.rng.randint(1, len(others)))
            self.took("ocpp.subprotocol_offer")
        return offered

    @_own_draws
    def pause(self) -> float:
        """Seconds until the next unsolicited message."""
        return self.rng.uniform(2.0, 90.0)

    @_own_draws
    def read_first(self) -> bool:
        """Whether a CSMS reads a setting of the station before an action its operator asked for."""
        return self.allows("ocpp.unsolicited_read") and self.draw(0.3)

    @_own_draws
    def read_after_boot(self) -> float | None:
        """Whether a CSMS reads a setting of a station soon after accepting its boot (``ocpp.unsolicited_read``):
        None, or the seconds it waits first (0: at once, behind its answer to the boot)."""
        if not self.allows("ocpp.unsolicited_read") or not self.draw():
            return None
        return 0.0 if self.draw() else self.rng.uniform(0.05, 1.0)

    @_own_draws
    def refuses_action(self, action: str) -> bool:
        """Whether the stand-in's actuator answers ``action`` as unsupported in this test: decided the first
        time the action is asked for and kept (an adapter does an action or does not), never for an action
        that undoes what a test did."""
        if action in UNDOING_ACTIONS or not self.allows("actuator.unsupported"):
            return False
        if action not in self.actions_decided:   # a real actuator does not begin to refuse what it did before
            self.actions_decided[action] = self.rng.random() < 0.04
        if self.actions_decided[action]:
            self.took("actuator.unsupported")
            return True
        return False


    # ------------------------------------------------------------ OCPI values
    @_own_draws
    def ocpi_object(self, name: str, value: Any, *, whole: bool = True, owned: bool = True) -> Any:
        """An OCPI object of schema ``name`` (or a list of them) as the stand-in writes it (a copy).
        ``whole``: a complete object (GET data, PUT body), where null and an empty list mean what absence
        means; a PATCH body is not. ``owned``: the stand-in's own object, whose ids and DateTimes it
        spells its way; an object the peer pushed is echoed as sent."""
        if isinstance(value, list):
            return [self.ocpi_object(name, item, whole=whole, owned=owned) for item in value]
        if not isinstance(value, dict):
            return value
        from harness.ocpi import schemas as ocpi_schemas   # here: an OCPP process (the load client) never loads it
        schema = ocpi_schemas.definition(name)
        properties, required = schema.get("properties", {}), set(schema.get("required", ()))
        varied = {}
        for key, member in value.items():
            kind, inner = _ocpi_kind(properties.get(key))
            mine = owned and key not in ECHOED
            if kind == "object":
                member = self.ocpi_object(inner, member, whole=whole, owned=mine)
            elif kind == "id" and mine and key in OWN_IDS:
                member = self.ocpi_id(member)
            elif kind == "datetime" and mine:
                member = self.ocpi_timestamp(member)
            varied[key] = member
        if whole and owned:
            for key in [k for k in varied if k not in required]:
                if (varied[key] == [] or DEFAULTS.get((name, key), _MISSING) == varied[key]) and self.draw(0.3):
                    del varied[key]
                    self.took("ocpi.omit_optional")
        if whole:
            for key in properties:
                if key not in required and key not in varied and self.draw(0.2):
                    varied[key] = None
                    self.took("ocpi.null_optional")
        return varied

    @_own_draws
    def ocpi_id(self, value: Any) -> Any:
        """One of the stand-in's own CiString ids as it stores it: the same spelling all test long."""
        if not isinstance(value, str):
            return value
        key = value.casefold()
        if key not in self._spelled:
            self._spelled[key] = self._case(value, "ocpi.id_case")
            return self._spelled[key]
        spelled = self._spelled[key]
        if spelled != value:
            self.took("ocpi.id_case")
        return spelled

    @_own_draws
    def ocpi_timestamp(self, value: Any) -> Any:
        """An OCPI DateTime in the stand-in's one form (Z or +00:00, 0 to 6 fractional digits, never
        fewer than the instant needs): the same instant."""
        if self._time_form is None:
            self._time_form = (self.rng.choice(("Z", "+00:00")), self.rng.randint(0, 6)) if self.draw() else ("", 0)
        suffix, digits = self._time_form
        moment = _utc(value) if suffix and isinstance(value, str) else None
        if moment is None:
            return value
        text = _written(moment, max(digits, _digits_needed(moment)), suffix)
        if text != value:
            self.took("ocpi.timestamp_form")
        return text

    # ------------------------------------------------------------ OCPI HTTP
    @_own_draws
    def page_cap(self, limit: int) -> int:
        """The most objects a list page holds: ``limit``, or a smaller cap of this server's, drawn once."""
        if self._page_cap is None:
            self._page_cap = self.rng.randint(1, 3) if self.draw() else 0
        return min(limit, self._page_cap) if self._page_cap else limit

    @_own_draws
    def next_link(self, next_url: str, first_url: str) -> str:
        """The Link header of a page that has a next one, in a legal form chosen at random."""
        plain = f'<{next_url}>; rel="next"'
        if not self.draw():
            return plain
        rng = self.rng
        rel = rng.choice(('"next"', "next", '"NEXT"', "Next", '"next"'))
        params = [f"rel{rng.choice(('=', ' =', '= ', ' = '))}{rel}"]
        params += rng.sample(LINK_PARAMS, rng.randint(0, 2))
        rng.shuffle(params)
        def semicolon() -> str:   # OWS ";" OWS, chosen afresh before each parameter
            return rng.choice((";", "; ", " ; ", "\t;  "))

        links = [f"<{next_url}>" + "".join(semicolon() + param for param in params)]
        if self.draw(0.4):
            links.insert(rng.randrange(2), f'<{first_url}>{semicolon()}rel="first"')
        text = rng.choice((",", ", ", " , ")).join(links)
        if text != plain:
            self.took("ocpi.link_form")
        return text

    @_own_draws
    def header_names(self, headers: dict[str, str]) -> dict[str, str]:
        """``headers`` with their names in another case, at random (values as they are)."""
        if not self.draw(0.3):
            return headers
        style = self.rng.choice((str.lower, str.upper, str.swapcase))
        renamed = {style(name): value for name, value in headers.items()}
        if list(renamed) != list(headers):
            self.took("ocpi.header_case")
        return renamed

    @property
    @_own_draws
    def slashed(self) -> bool:
        """Whether the stand-in publishes its URLs with a trailing slash (drawn once)."""
        if self._slashed is None:
            self._slashed = self.draw()
        return self._slashed


def _ocpi_kind(schema: Any) -> tuple[str, str]:
    """What an OCPI member holds, by its schema: ("id" | "datetime" | "object", the object's schema; "" for the
    others) or ("", "")."""
    if not isinstance(schema, dict):
        return "", ""
    if schema.get("type") == "array":
        schema = schema.get("items") or {}
    ref = schema.get("$ref", "")
    if ref.endswith("#/$defs/CiString"):
        return "id", ""
    if ref.endswith("#/$defs/DateTime"):
        return "datetime", ""
    if ref.endswith(".json"):
        return "object", ref.removesuffix(".json")
    return "", ""


def _utc(value: str) -> datetime | None:
    """``value`` as a date-time in UTC; None when it is none, or in another zone (left as it is)."""
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    offset = moment.utcoffset()
    return moment if offset is not None and offset.total_seconds() == 0 else None


def _digits_needed(moment: datetime) -> int:
    """The fractional digits that write ``moment``'s instant exactly."""
    return len(f"{moment.microsecond:06d}".rstrip("0")) if moment.microsecond else 0


def _written(moment: datetime, digits: int, suffix: str) -> str:
    """``moment`` in RFC 3339 with ``digits`` fractional digits and the zone ``suffix`` (Z or +00:00)."""
    fraction = f".{moment.microsecond:06d}"[:digits + 1] if digits else ""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S") + fraction + suffix


def _types(schema: dict[str, Any]) -> set[str]:
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


