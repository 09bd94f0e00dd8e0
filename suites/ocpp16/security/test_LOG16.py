"""LOG16 — the log of a charge point, in the 1.6 security extension (the OCA white paper "Improved security for
OCPP 1.6-J", N01 Retrieve Log Information): the central system sends GetLog.req (the log type, a requestId, where to
upload it), the charge point answers with the file name, uploads the file there and reports the upload with
LogStatusNotification.req (Uploading, then Uploaded or UploadFailure), each with the requestId.

The harness receives the upload on loopback over http (``harness.transport.files``). The charge point's rows are the
white paper's N01 requirements (edition 3: N01.FR.01, 02, 07-10, each a SHALL); a charge point that answers
Rejected (N01.FR.01 binds it only when the log asked for is available) makes the test not applicable. The central
system must send GetLog as asked (the general 1.6 rows) and is expected to answer the notifications (no SHALL found:
a SHOULD). docs/requirements/security.md."""

import pytest

from harness.roles import CS, CSMS
from harness.errors import NotApplicable
from harness.rules import RuleTable, must, should
from harness.suite import OCPP16, case, checks
from harness.transport.files import FileDepot
from harness.usecases.operations import ASKED16, operate
from harness.verdict import check_equal, check_in, require

WHITEPAPER = "OCPP 1.6 security whitepaper ed. 3 N01"
REQUEST_ID = 41
FAILED = ("UploadFailure", "BadMessage", "NotSupportedOperation", "PermissionDenied")   # N01.FR.10
FINAL = {"Uploaded", *FAILED}


class LOG16(RuleTable):
    """The rules of LOG16."""
    uploaded = must(f"{WHITEPAPER}.FR.01, FR.02, FR.08, FR.09", "GetLog is answered Accepted with the filename, the "
                    "file is uploaded to the location, and LogStatusNotification reports Uploading, then Uploaded",
                    by=CS)
    request_id = must(f"{WHITEPAPER}.FR.07", "each LogStatusNotification of the upload carries the requestId of the "
                      "GetLog", by=CS)
    upload_failed = must(f"{WHITEPAPER}.FR.10; UploadLogStatusEnumType", "an upload the location refuses is reported "
                         "UploadFailure, BadMessage, PermissionDenied or NotSupportedOperation", by=CS)
    answered = should("OCPP-J (a CALL is answered); 1.6 security extension LogStatusNotification.conf",
                      "the central system answers LogStatusNotification", by=CSMS)


pytestmark = case("LOG16", block="Security (1.6)", roles=("csms", "cs"), protocols=OCPP16,
                  requires=["advanced_security"])


async def upload_location(ocpp) -> FileDepot:
    """The harness's file server on loopback, stopped when the test ends."""
    files = await FileDepot(ocpp.wirelog).start()
    ocpp.undo("stop the file server", files.stop)
    return files


async def _statuses(ocpp, after: int) -> list:
    """The LogStatusNotifications the charge point sent from ``after`` until a final one, each judged answered."""
    seen, start = [], after
    while not seen or seen[-1].request["status"] not in FINAL:
        sent = await ocpp.expect("LogStatusNotification", sender=CS, after=start, rule=LOG16.uploaded)
        if ocpp.is_sut(CSMS):
            require(sent.error is None, LOG16.answered, "LogStatusNotification was refused",
                    expected="LogStatusNotification.conf", actual=sent.error)
        seen.append(sent)
        start = ocpp.mark_after(sent)
    return seen


def _available(ocpp, exchange, log_type: str) -> None:
    """A charge point under test that answers Rejected has no such log to give (N01.FR.01 binds it when it has)."""
    if ocpp.is_sut(CS) and (exchange.result or {}).get("status") == "Rejected":
        raise NotApplicable(f"the charge point answered GetLog {log_type} Rejected: no such log available")


def _get_log(location: str, log_type: str = "SecurityLog") -> dict:
    return {"logType": log_type, "requestId": REQUEST_ID, "log": {"remoteLocation": location}}


@pytest.mark.parametrize("log_type", ["SecurityLog", "DiagnosticsLog"])
@checks(*ASKED16, LOG16.uploaded, LOG16.request_id, LOG16.answered)
async def test_log_is_uploaded(ocpp, log_type):
    """GetLog to the harness's upload location: Accepted with a filename, Uploading, Uploaded, the file there."""
    depot, mark = await upload_location(ocpp), ocpp.mark()
    exchange = await operate(ocpp, "GetLog", _get_log(depot.upload_url, log_type))
    name = (exchange.result or {}).get("filename")
    _available(ocpp, exchange, log_type)
    seen = await _statuses(ocpp, mark)
    if ocpp.is_sut(CS):
        check_equal(LOG16.uploaded, "GetLog.conf status", "Accepted", (exchange.result or {}).get("status"))
        require(bool(name), LOG16.uploaded, "GetLog.conf names no file", expected="filename", actual=exchange.result)
        check_equal(LOG16.uploaded, "LogStatusNotification statuses", ["Uploading", "Uploaded"],
                    [s.request["status"] for s in seen])
        check_equal(LOG16.request_id, "LogStatusNotification requestIds", [REQUEST_ID] * len(seen),
                    [s.request.get("requestId") for s in seen])
        require(name in depot.uploads, LOG16.uploaded, "the log did not arrive at the location", expected=name,
                actual=sorted(depot.uploads))


@pytest.mark.sut_roles("cs")
@checks(*ASKED16, LOG16.upload_failed)
async def test_log_upload_that_is_refused_fails(ocpp):
    """GetLog to a location that refuses uploads (the harness's download directory): UploadFailure."""
    depot, mark = await upload_location(ocpp), ocpp.mark()
    _available(ocpp, await operate(ocpp, "GetLog", _get_log(depot.url_of("") + "read-only")), "SecurityLog")
    seen = await _statuses(ocpp, mark)
    check_in(LOG16.upload_failed, "the last LogStatusNotification status", FAILED, seen[-1].request["status"])
