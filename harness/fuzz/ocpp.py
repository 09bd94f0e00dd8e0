"""Fuzzing an OCPP-J receiver: mutated frames, each with the answer the texts name for it.

``Frames(version, receiver, rng)`` makes frames — CALLs of the receiver's actions broken in one way
(``schema_data.mutate``), CALLs of actions it does not know or does not take, frames of unknown
message types, frames without a usable message id, text that is no JSON or no frame, binary frames,
JSON nested thousands deep, answers to no CALL, and valid CALLs of actions without side effects —
each with the ``Expect``ation of the oracle: the CALLERROR codes that name the fault (``CODES``,
written from the texts for this fuzzer, not taken from the harness's own mapping), the message ids
the answer may carry, or that nothing is to be answered.

``fuzz(link, version, frames, tally, answer_call)`` plays them in lock step on an open WebSocket (one frame, its answer,
the next), answers the receiver's own CALLs with valid payloads, and tallies what came back.
"""

from __future__ import annotations

import asyncio
import json
import random
import string
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any


from harness import clock
from harness.fuzz.schema_data import FORMAT, OCCURRENCE, PROPERTY, TYPE, largest, mutate, overlong, valid
from harness.ocpp import schemas
from harness.ocpp.versions import OcppVersion
from harness.transport.ws import HISTORY_KEPT, MAX_FRAME, VIOLATIONS_KEPT

OCCURRENCE_CODES = frozenset({"OccurrenceConstraintViolation", "OccurenceConstraintViolation"})
FRAME, UNKNOWN_ACTION, WRONG_DIRECTION, NO_ID, UNKNOWN_TYPE, TOO_DEEP = (
    "frame", "unknown action", "not taken here", "no usable id", "unknown message type", "too deep")

# The codes the texts give each fault (spec 002 Errors for 1.6; OCPP 2.0.1/2.1 part 4 §4.3), by
# ``version.is_2x``. Readings where a text leaves room, each a code a correct receiver may send:
# - a required field missing: 1.6 names it both "incomplete" (ProtocolError) and an occurrence fault;
# - a property the class does not define: 2.x FormatViolation ("syntactically incorrect") or
#   ProtocolError ("not conform the PDU structure"); 1.6 FormationViolation says both;
# - a CALL frame of the wrong length or element types: as above, and in 2.x RpcFrameworkError (the
#   content is no valid RPC request);
# - an action the receiver knows but does not take in its role: NotSupported, or NotImplemented;
# - text without a usable message id: 2.x RpcFrameworkError with message id "-1"; 1.6 has no code of
#   its own for it, FormationViolation is the one that names a message "not conforming to the structure";
# - an unknown message type: 2.x MessageTypeNotSupported; 1.6 FormationViolation, as above;
# - JSON nested deeper than any schema: the message is refused whole, as one without a usable id
#   (RpcFrameworkError; FormatViolation also fits), or as a structure fault in 1.6.
CODES: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    OCCURRENCE: (OCCURRENCE_CODES | {"ProtocolError"}, OCCURRENCE_CODES),
    TYPE: (frozenset({"TypeConstraintViolation"}),) * 2,
    PROPERTY: (frozenset({"PropertyConstraintViolation"}),) * 2,
    FORMAT: (frozenset({"FormationViolation"}), frozenset({"FormatViolation", "ProtocolError"})),
    FRAME: (frozenset({"FormationViolation"}), frozenset({"FormatViolation", "ProtocolError", "RpcFrameworkError"})),
    UNKNOWN_ACTION: (frozenset({"NotImplemented"}),) * 2,
    WRONG_DIRECTION: (frozenset({"NotImplemented", "NotSupported"}),) * 2,
    NO_ID: (frozenset({"FormationViolation"}), frozenset({"RpcFrameworkError"})),
    UNKNOWN_TYPE: (frozenset({"FormationViolation"}), frozenset({"MessageTypeNotSupported"})),
    TOO_DEEP: (frozenset({"FormationViolation"}), frozenset({"RpcFrameworkError", "FormatViolation"})),
}
UNKNOWN_ID = "-1"
WARM_UP = VIOLATIONS_KEPT + 300   # frames of the warm-up that break a rule (see Frames.warm_up)
DEPTHS = (65, 200, 1000, 5000, 50000)   # how deep the too-deep payloads nest
DESCRIPTION_LENGTH = 255   # OCPP 2.0.1 part 4 §4.2.3: ErrorDescription is string[0..255]
ANSWER_TIMEOUT = 30.0   # seconds a receiver has to answer one frame: far above any answer's time


@dataclass(frozen=True)
class Expect:
    """What a correct receiver answers a frame with: nothing (``quiet``), a CALLRESULT to ``action``
    (``codes`` None), or a CALLERROR with one of ``codes``; the answer's message id one of ``ids``."""
    fault: str                       # the kind of frame, for the tally
    what: str                        # what was done to it, for a wrong answer's report
    ids: frozenset[str] = frozenset()
    codes: frozenset[str] | None = None
    action: str | None = None
    quiet: bool = False


@dataclass(frozen=True)
class Frame:
    data: str | bytes
    expect: Expect


def handled_actions(cls: type) -> frozenset[str]:
    """The actions a reference class answers: its ``on_<Action>`` methods."""
    return frozenset(name.removeprefix("on_") for name in dir(cls) if name.startswith("on_"))


# Valid CALLs without side effects a receiver keeps after them (no reset, no transaction, no new state).
HARMLESS = {"csms": {"Heartbeat", "DataTransfer", "StatusNotification", "Authorize"},
            "cs": {"DataTransfer", "GetVariables", "GetConfiguration", "GetLocalListVersion"}}


class Frames:
    """Frames for a receiver playing ``receiver`` ("csms" or "cs") in ``version``, seeded by ``rng``.

    ``takes`` are the actions the receiver answers (its CALLs to mutate), ``others`` the actions of
    the version it does not take (sent valid: not taken here).
    """

    def __init__(self, version: OcppVersion, receiver: str, rng: random.Random, *,
                 takes: frozenset[str], others: frozenset[str]):
        self.version, self.receiver, self.rng = version, receiver, rng
        known = schemas.known_actions(version)
        self.takes = sorted(takes & known)
        self.others = sorted((others & known) - takes)
        self.harmless = sorted(HARMLESS[receiver] & takes & known)
        self._number = 0
        self._roots = {(action, direction): schemas._schema(version, action, direction)
                       for action in known for direction in ("request",)}
        self._makers = [(40, self._mutated), (8, self._harmless), (6, self._unknown_action),
                        (4, self._not_taken), (8, self._broken_call), (6, self._no_usable_id),
                        (6, self._not_a_frame), (4, self._unknown_type), (6, self._quiet), (2, self._too_deep)]

    def next(self) -> Frame:
        weights = [weight for weight, _ in self._makers]
        maker = self.rng.choices([make for _, make in self._makers], weights)[0]
        return maker()

    def warm_up(self) -> list[Frame]:
        """What a receiver keeps from here on is what a run measures: one broken CALL of every action it
        takes (each validator it builds on first use is built), the largest frame of each action and a
        payload nested to each depth the run sends (the parser's, the validators' and the allocator's
        high-water mark), as many valid CALLs as a connection keeps exchanges, then frames until
        ``WARM_UP`` of them broke a rule (as many as it keeps violations, and a margin for those it
        answers without keeping one)."""
        frames = ([self._mutated(action) for action in self.takes] + [self._longest(action) for action in self.takes]
                  + [self._too_deep(depth) for depth in DEPTHS] + [self._harmless() for _ in range(HISTORY_KEPT)])
        broken = 0
        while broken < WARM_UP:
            frames.append(self.next())
            broken += frames[-1].expect.fault != "valid"
        return frames

    # ------------------------------------------------------------------ helpers
    def _id(self) -> str:
        self._number += 1
        return f"fz-{self._number}"

    def _codes(self, fault: str) -> frozenset[str]:
        return CODES[fault][self.version.is_2x]

    def _payload(self, action: str) -> dict:
        return valid(self._roots[(action, "request")], self.rng)

    def _call(self, message_id: str, action: Any, payload: Any) -> str:
        return json.dumps([2, message_id, action, payload], default=str)

    def _error(self, fault: str, what: str, message_id: str, ids: set[str] | None = None) -> Expect:
        return Expect(fault, what, frozenset(ids or {message_id}), self._codes(fault))

    # ------------------------------------------------------------------ the frames
    def _mutated(self, action: str | None = None) -> Frame:
        action = action or self.rng.choice(self.takes)
        root = self._roots[(action, "request")]
        broken = mutate(root, valid(root, self.rng), self.rng)
        if broken is None:   # an action whose request has nothing to break (Heartbeat {}): an undefined property
            payload, kind, what = {"fuzz": 1}, FORMAT, "undefined property fuzz"
        else:
            payload, mutation = broken
            kind, what = mutation.kind, f"{mutation.what} at {mutation.path or '(payload)'}"
        message_id = self._id()
        return Frame(self._call(message_id, action, payload), self._error(kind, f"{action}: {what}", message_id))

    def _longest(self, action: str) -> Frame:
        """The largest frame the run can send for ``action`` within the frame limit a receiver reads: its
        ``largest`` payload with an array one item too long (the first item repeated), the longest that
        fits; an action without such an array sends its largest payload with an undefined property."""
        root = self._roots[(action, "request")]
        payload = largest(root)
        fitting = next(((payload, mutation) for payload, mutation in overlong(root, payload, self.rng)
                        if len(self._call("fz-0000000", action, payload)) <= MAX_FRAME), None)
        if fitting is None:
            payload, kind, what = {**payload, "fuzz": 1}, FORMAT, "undefined property fuzz"
        else:
            payload, mutation = fitting
            kind, what = mutation.kind, f"{mutation.what} at {mutation.path}"
        message_id = self._id()
        return Frame(self._call(message_id, action, payload), self._error(kind, f"{action}: {what}", message_id))

    def _harmless(self, action: str | None = None) -> Frame:
        action = action or self.rng.choice(self.harmless)
        message_id = self._id()
        return Frame(self._call(message_id, action, self._payload(action)),
                     Expect("valid", f"valid {action}", frozenset({message_id}), None, action))

    def _unknown_action(self) -> Frame:
        action = self.rng.choice(["", "Fuzz", "heartbeat", "Heart beat", "../Reset", "Ünïcode"]) + \
            "".join(self.rng.choices(string.ascii_letters, k=self.rng.randint(0, 12)))
        message_id = self._id()
        return Frame(self._call(message_id, action, {}),
                     self._error(UNKNOWN_ACTION, f"unknown action {action!r}", message_id))

    def _not_taken(self) -> Frame:
        action = self.rng.choice(self.others)
        message_id = self._id()
        return Frame(self._call(message_id, action, self._payload(action)),
                     self._error(WRONG_DIRECTION, f"{action}, which a {self.receiver} does not take", message_id))

    def _broken_call(self) -> Frame:
        message_id = self._id()
        action = self.rng.choice(self.takes)
        shape = self.rng.choice(["short", "long", "action", "payload"])
        if shape == "short":
            data, what = json.dumps([2, message_id, action]), "a CALL of three elements"
        elif shape == "long":
            data, what = json.dumps([2, message_id, action, {}, {}]), "a CALL of five elements"
        elif shape == "action":
            data, what = self._call(message_id, self.rng.choice([5, None, ["Heartbeat"], {"a": 1}]), {}), \
                "a CALL whose action is no string"
        else:
            data, what = self._call(message_id, action, self.rng.choice([[], "payload", 42, None, [{}]])), \
                "a CALL whose payload is no object"
        return Frame(data, self._error(FRAME, what, message_id))

    def _no_usable_id(self) -> Frame:
        bad = self.rng.choice([None, 17, "", ["x"], {"id": 1}, True, "x" * self.rng.randint(37, 200)])
        data = json.dumps([2, bad, "Heartbeat", {}])
        ids = {UNKNOWN_ID, bad} if isinstance(bad, str) and bad else {UNKNOWN_ID}
        return Frame(data, self._error(NO_ID, f"a CALL whose message id is {str(bad)[:40]!r}", UNKNOWN_ID, ids))

    def _not_a_frame(self) -> Frame:
        rng = self.rng
        shape = rng.choice(["text", "json", "array", "binary", "empty", "truncated"])
        if shape == "text":
            data = "".join(rng.choices(string.printable, k=rng.randint(1, 300)))
            try:
                json.loads(data)
                data = "{" + data   # a valid JSON number or word: make it none
            except ValueError:
                pass
        elif shape == "json":
            data = json.dumps(rng.choice([{"a": [1, 2]}, "text", 3.5, None, True, {"2": "fz"}]))
        elif shape == "array":
            data = json.dumps(rng.choice([[], [2], ["2", "fz", "Heartbeat", {}], [2.5, "fz", "Heartbeat", {}],
                                          [True, "fz", "Heartbeat", {}], [[2], "fz"]]))
        elif shape == "binary":
            data = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 64)))
        elif shape == "empty":
            data = rng.choice(["", " ", "\n"])
        else:
            data = self._call(self._id(), "Heartbeat", {})[:-rng.randint(1, 10)]
        what = f"{shape}: {data[:60]!r}"
        return Frame(data, self._error(NO_ID, f"no frame ({what})", UNKNOWN_ID))

    def _unknown_type(self) -> Frame:
        known = self.version.message_types
        kind = self.rng.choice([n for n in (0, 1, 5, 6, 7, 8, 42, -2, 99999) if n not in known])
        message_id = self._id()
        data = json.dumps([kind, message_id, "Heartbeat", {}])
        return Frame(data, self._error(UNKNOWN_TYPE, f"message type {kind}", message_id))

    def _quiet(self) -> Frame:
        """Frames nobody answers: answers to no CALL, an answer of the wrong shape; 2.1 SEND and CALLRESULTERROR."""
        message_id = self._id()
        shapes = [([3, message_id, {}], "a CALLRESULT to no CALL"),
                  ([4, message_id, "GenericError", "fuzz", {}], "a CALLERROR to no CALL"),
                  ([3, message_id, {}, {}], "a CALLRESULT of four elements"),
                  ([4, message_id, 5, "", {}], "a CALLERROR whose code is no string")]
        if self.version is OcppVersion.V21:
            shapes += [([6, message_id, "NotifyPeriodicEventStream", {}], "a SEND"),
                       ([5, message_id, "GenericError", "fuzz", {}], "a CALLRESULTERROR")]
        data, what = self.rng.choice(shapes)
        return Frame(json.dumps(data), Expect("quiet", what, frozenset({message_id}), quiet=True))

    def _too_deep(self, depth: int | None = None) -> Frame:
        depth = depth or self.rng.choice(DEPTHS)
        message_id = self._id()
        data = f'[2,"{message_id}","DataTransfer",{{"vendorId":"v","data":' + "[" * depth + "]" * depth + "}]"
        return Frame(data, self._error(TOO_DEEP, f"a payload nested {depth} deep", message_id, {UNKNOWN_ID, message_id}))


# ====================================================================== the oracle and the run
@dataclass
class Tally:
    """What a fuzz run sent and how the receiver answered."""
    frames: int = 0
    by_fault: Counter = field(default_factory=Counter)
    wrong: int = 0
    examples: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def count_wrong(self, what: str, problem: str) -> None:
        """What was sent (``what``) got a wrong answer, or none."""
        self.wrong += 1
        if len(self.examples) < 20:
            self.examples.append(f"{what}: {problem}")


def judge(version: OcppVersion, expect: Expect, reply: list) -> str | None:
    """Why ``reply`` (a CALLRESULT or CALLERROR) is the wrong answer to a frame ``expect``-ed so; None when right."""
    if reply[1] not in expect.ids:
        return f"answered with message id {reply[1]!r}, expected {sorted(expect.ids)}"
    if expect.codes is None:
        if reply[0] != 3:
            return f"CALLERROR {reply[2:4]} to a valid {expect.action}"
        problems = schemas.validate(version, expect.action, "response", reply[2])
        return f"the {expect.action} answer breaks its schema: {problems[0]}" if problems else None
    if reply[0] != 4 or len(reply) != 5:
        return f"answered {json.dumps(reply)[:200]}, expected a CALLERROR {sorted(expect.codes)}"
    if reply[2] not in expect.codes:
        return f"CALLERROR {str(reply[2])[:60]} ({str(reply[3])[:200]!r}), expected one of {sorted(expect.codes)}"
    if version.is_2x and not (isinstance(reply[3], str) and len(reply[3]) <= DESCRIPTION_LENGTH):
        return f"an ErrorDescription of {len(str(reply[3]))} characters (2.x: string[0..{DESCRIPTION_LENGTH}])"
    return None


async def fuzz(link, version: OcppVersion, frames: Iterable[Frame], tally: Tally, answer_call) -> None:
    """Send ``frames`` on ``link`` (a websockets connection) in lock step and judge every answer.

    A frame to be answered waits for its answer (the receiver's own CALLs meanwhile are answered with
    ``answer_call(action, payload)``); a quiet one does not, and an answer to it that comes later is
    wrong. Raises ConnectionClosed when the receiver ends the link (the caller counts and reconnects).
    """
    quiet: dict[str, Frame] = {}   # frames no answer is due to, by id (the newest)
    late: set[str] = set()         # ids of frames that timed out: their answer, if it comes, is passed over
    started = clock.now()
    try:
        for frame in frames:
            tally.frames += 1
            tally.by_fault[frame.expect.fault] += 1
            await link.send(frame.data)
            if frame.expect.quiet:
                quiet.update(dict.fromkeys(frame.expect.ids, frame))
                if len(quiet) > 1000:
                    quiet.pop(next(iter(quiet)))
                continue
            while True:
                try:
                    text = await asyncio.wait_for(link.recv(), ANSWER_TIMEOUT)
                except TimeoutError:
                    tally.count_wrong(frame.expect.what, f"no answer within {ANSWER_TIMEOUT:g} s")
                    late |= frame.expect.ids - {UNKNOWN_ID}
                    break
                try:
                    message = json.loads(text)
                except ValueError:
                    tally.count_wrong(frame.expect.what, f"answered with text that is no JSON: {text[:200]!r}")
                    break
                if not isinstance(message, list) or len(message) < 3 or message[0] not in (2, 3, 4):
                    tally.count_wrong(frame.expect.what, f"answered with no OCPP-J frame: {text[:200]}")
                    break
                if message[0] == 2:   # the receiver's own CALL
                    await link.send(json.dumps([3, message[1], answer_call(message[2], message[3])]))
                    continue
                if message[1] in late:
                    late.discard(message[1])
                    continue
                if message[1] in quiet:
                    tally.count_wrong(quiet.pop(message[1]).expect.what, f"answered a frame that must not be: {text[:200]}")
                    continue
                problem = judge(version, frame.expect, message)
                if problem:
                    tally.count_wrong(frame.expect.what, problem)
                break
    finally:
        tally.seconds += clock.now() - started
