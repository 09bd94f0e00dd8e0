"""The answer to a CALL, or the verdict on the CALLERROR that took its place.

A test that reads what the SUT answered reads ``Exchange.result`` (``harness.transport.ws``), which
calls ``result_of`` here: a CALLRESULT gives its payload; a CALLERROR is a verdict, never a crash
on a missing payload (``tests/unit/test_architecture.py`` checks that no use case or suite reads
the raw ``response``):

- the SUT refuses, as not implemented or not supported (NotImplemented, NotSupported: spec 002
  Errors; OCPP 2.0.1 part 4 §4.3), a message its version lets it leave out: legal, the test does
  not apply (``NotApplicable``, with the reason);
- it refuses so a message its version requires (``REQUIRED``): ``Answers.implemented`` is broken;
- any other code for a CALL the harness sent valid: ``Answers.processed`` (a SHOULD: no text makes a
  CALLRESULT due in every case), and the test cannot go on: broken, with the finding (the SUT neither
  refused the feature, which would make the test not apply, nor broke a MUST the test could name);
- the CALL was the SUT's and the harness's side answered it with a CALLERROR: the harness could not
  serve it (broken); a fault of the SUT's CALL is reported with it, recorded on the connection.

Which messages a version requires: 1.6 the messages of the Core profile (spec 002 What the service
does 2, Core is required and the table lists its messages); 2.x the messages of the functional blocks
of the Core certification profile (OCPP 2.0.1 part 0, Certification profiles: provisioning,
authorization, transactions, remote control, availability) that the suites send — listed only where
the profile names them surely; a message left out is judged as optional, which never blames a correct SUT.
"""

from __future__ import annotations

from typing import Any, NoReturn

from harness.errors import HarnessError, NotApplicable, clip
from harness.ocpp.framing import CallError
from harness.ocpp.versions import OcppVersion
from harness.rules import RuleTable, must, should
from harness.verdict import violated


class Answers(RuleTable, namespace="answer"):
    """What answers a CALL of the harness that the SUT must, or may, implement."""
    implemented = must("spec 002 What the service does 2 (Core is required; its messages); OCPP 2.0.1 part 0 "
                       "Certification profiles (Core)",
                       "a CALL of a message the version requires of the receiver is not refused as NotImplemented "
                       "or NotSupported")
    processed = should("spec 002 Errors; OCPP 2.0.1 part 4 §4.3",
                       "a valid CALL of a message the receiver implements is answered with a CALLRESULT (a "
                       "CALLERROR names a fault of the CALL or the transport)")


REFUSALS = frozenset({"NotImplemented", "NotSupported"})   # "I do not do this": legal for an optional message

_CORE16 = frozenset({
    "Authorize", "BootNotification", "ChangeAvailability", "ChangeConfiguration", "ClearCache", "DataTransfer",
    "GetConfiguration", "Heartbeat", "MeterValues", "RemoteStartTransaction", "RemoteStopTransaction", "Reset",
    "StartTransaction", "StatusNotification", "StopTransaction", "UnlockConnector",
})
_CORE2X = frozenset({
    "BootNotification", "Heartbeat", "StatusNotification", "Authorize", "TransactionEvent",
    "RequestStartTransaction", "RequestStopTransaction", "Reset", "GetVariables", "SetVariables",
    "ChangeAvailability",
})
REQUIRED: dict[OcppVersion, frozenset[str]] = {OcppVersion.V16: _CORE16, OcppVersion.V201: _CORE2X,
                                               OcppVersion.V21: _CORE2X}


def result_of(action: str, version: OcppVersion | None, response: dict[str, Any] | None, error: CallError | None,
              *, incoming: bool) -> dict[str, Any] | None:
    """The CALLRESULT payload of ``action`` (None: an incoming CALL not answered yet), or the verdict on
    its CALLERROR ``error``; ``incoming``: the SUT sent the CALL and the harness's side answered it."""
    return response if error is None else judge_error(action, version, error, incoming=incoming)


def judge_error(action: str, version: OcppVersion | None, error: CallError, *, incoming: bool) -> NoReturn:
    """The verdict on the CALLERROR ``error`` that answered a CALL of ``action`` (see the module)."""
    said = f"CALLERROR {error.code} ({clip(error.description, 200)!r})"
    if incoming:
        raise HarnessError(f"the harness's side answered the SUT's {action} with {said}, so the test cannot go on "
                           f"(a fault of the SUT's CALL is reported with this)")
    if error.code in REFUSALS:
        if version is not None and action in REQUIRED[version]:
            violated(Answers.implemented, f"the SUT refused {action}, which {version.value} requires it to "
                     f"implement, with {said}", expected=f"a CALLRESULT of {action}", actual=error.code)
        raise NotApplicable(f"the SUT does not implement {action} ({said}), which {_named(version)} lets it "
                            f"leave out: the test does not apply")
    violated(Answers.processed, f"the SUT answered the harness's valid {action} with {said}",
             expected=f"a CALLRESULT of {action}", actual=error.code)
    raise HarnessError(f"the SUT did not process {action} ({said}), so the test cannot go on: it cannot be judged")


def _named(version: OcppVersion | None) -> str:
    return version.value if version is not None else "its version"
