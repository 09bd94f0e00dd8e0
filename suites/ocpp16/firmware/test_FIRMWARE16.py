"""FIRMWARE16 — Firmware Management in 1.6: UpdateFirmware with the FirmwareStatusNotification sequence,
the reboot and the BootNotification, and GetDiagnostics with the DiagnosticsStatusNotification
sequence (spec 002 What the service does 4; Enumerations FirmwareStatus, DiagnosticsStatus; Events).

The harness serves the firmware file and receives the diagnostics upload on loopback over http
(``harness.transport.files``; the README says why only http). Readings chosen where the text is
silent: the statuses of one update come in the order of the steps (Downloading before Downloaded
before Installing before Installed), and a download that cannot succeed ends with DownloadFailed and
no Installing; the upload goes to the location the central system gave.

What the central system owes: UpdateFirmware and GetDiagnostics sent as asked, every status notification
answered (FIRMWARE16.notifications_answered), and the BootNotification after an update answered: Accepted
only required of a station the profile declares registered (Registration.accepted; Pending and Rejected are
its right otherwise). After
DownloadFailed, InstallationFailed or UploadFailed spec 002 asks nothing more of it (What the service does 4
names no follow-up: a new request is its operator's choice).
"""

import secrets
from datetime import timedelta

import pytest
import pytest_asyncio

from harness import clock
from harness.arena.ocpp_sides import Registration
from harness.roles import CS, CSMS
from harness.errors import HarnessError
from harness.rules import RuleTable, must
from harness.suite import OCPP16, TC, case, checks
from harness.transport.files import FileDepot
from harness.usecases.core16 import harness_rebooted
from harness.usecases.operations import ASKED16, operate
from harness.verdict import check_equal, require

INSTALLED = ("Downloading", "Downloaded", "Installing", "Installed")
RETRIES, RETRY_INTERVAL = 2, 2   # UpdateFirmware.retries and retryInterval (seconds) of the retry test
TOLERANCE = 0.25                 # seconds of scheduling slack when an interval is measured


class FIRMWARE16(RuleTable):
    """The rules of FIRMWARE16."""
    firmware_sequence = must("spec 002 What the service does 4; Enumerations FirmwareStatus",
                             "an update is reported with FirmwareStatusNotification at each step: Downloading, "
                             "Downloaded, Installing, Installed, in that order", by=CS)
    downloaded = must("spec 002 What the service does 4 (location)",
                      "the charge point downloads the firmware from the location it was given", by=CS)
    reboots = must("spec 002 What the service does 4",
                   "after installing the firmware the charge point reboots and sends BootNotification", by=CS)
    download_failed = must("spec 002 Enumerations FirmwareStatus (DownloadFailed)",
                           "a download that cannot succeed is reported DownloadFailed, and nothing is installed", by=CS)
    retried = must("spec 002 What the service does 4 (retries, retryInterval); OCPP 1.6 UpdateFirmware.req",
                   "a download that fails is tried again before DownloadFailed: retries times in all (or after the "
                   "first try), a retry no sooner than retryInterval seconds after the try before", by=CS)
    diagnostics_sequence = must("spec 002 Enumerations DiagnosticsStatus; Events",
                                "GetDiagnostics is answered with the fileName, and the upload is reported Uploading, "
                                "then Uploaded, with the file at the location", by=CS)
    upload_failed = must("spec 002 Enumerations DiagnosticsStatus (UploadFailed)",
                         "an upload the location refuses is reported UploadFailed", by=CS)
    notifications_answered = must("spec 002 Operations by direction; Events",
                                  "the central system answers FirmwareStatusNotification, "
                                  "DiagnosticsStatusNotification and the BootNotification after the update", by=CSMS)


pytestmark = case("FIRMWARE16", block="Firmware Management (1.6)", roles=("csms", "cs"), protocols=OCPP16,
                  requires=["firmware_management"])


@pytest_asyncio.fixture(loop_scope="session")
async def depot(ocpp):
    """The harness's file server on loopback, for this test."""
    files = await FileDepot(ocpp.wirelog).start()
    yield files
    await files.stop()


def _now() -> str:
    return (clock.utcnow() - timedelta(seconds=1)).isoformat(timespec="seconds").replace("+00:00", "Z")


async def _statuses(ocpp, action: str, after: int, last: set[str], rule) -> list[str]:
    """The statuses of ``action`` the charge point sent from ``after`` until one of ``last``, each answered."""
    seen, start = [], after
    while not seen or seen[-1] not in last:
        sent = await ocpp.expect(action, sender=CS, after=start, rule=rule)
        require(sent.error is None, FIRMWARE16.notifications_answered, f"{action} was refused",
                expected=f"{action}.conf", actual=sent.error)
        seen.append(sent.request["status"])
        start = ocpp.mark_after(sent)
    return seen


@checks(*ASKED16, FIRMWARE16.firmware_sequence, FIRMWARE16.downloaded, FIRMWARE16.reboots,
        FIRMWARE16.notifications_answered, Registration.accepted, cs=TC("TC_044_1_CS"), csms=TC("TC_044_1_CSMS"))
async def test_firmware_is_installed_and_the_charge_point_reboots(ocpp, depot):
    """UpdateFirmware with a file the harness serves: Downloading, Downloaded, Installing, Installed, the
    file fetched, then a reboot and a BootNotification the central system accepts."""
    name = f"firmware-{secrets.token_hex(4)}.bin"
    location = depot.offer(name, secrets.token_hex(128).encode())   # text: the wire log stays readable
    before, mark = ocpp.connections(), ocpp.mark()
    await operate(ocpp, "UpdateFirmware", {"location": location, "retrieveDate": _now()})
    seen = await _statuses(ocpp, "FirmwareStatusNotification", mark, {"Installed", "DownloadFailed",
                                                                      "InstallationFailed"},
                           FIRMWARE16.firmware_sequence)
    check_equal(FIRMWARE16.firmware_sequence, "FirmwareStatusNotification statuses", list(INSTALLED), seen)
    if ocpp.is_sut(CS):
        require(name in depot.fetched, FIRMWARE16.downloaded, "the firmware was reported Downloaded but never "
                "fetched from the location", expected=f"GET {location}", actual=depot.fetched)
        boot = await ocpp.harness_csms.restarted(before, mark)
        require(boot is not None, FIRMWARE16.reboots, "no BootNotification after the firmware was installed",
                expected="BootNotification", actual="nothing")
        return
    boot = await harness_rebooted(ocpp, before, "its reboot")
    ocpp.harness_station.boot_answered(boot.result["status"])   # Pending or Rejected is the CSMS's right


@pytest.mark.sut_roles("csms")
@checks(*ASKED16, FIRMWARE16.notifications_answered, csms=TC("TC_044_3_CSMS"))
async def test_failed_installation_is_answered(ocpp, depot):
    """The charge point downloads the firmware and fails to install it: Downloading, Downloaded, Installing,
    InstallationFailed, each answered. The central system sent UpdateFirmware as asked; after InstallationFailed
    the texts ask nothing more of it (spec 002 What the service does 4 names no follow-up; a new UpdateFirmware is
    its operator's choice)."""
    ocpp.configure(installation_fails=True)
    name = f"firmware-{secrets.token_hex(4)}.bin"
    location = depot.offer(name, secrets.token_hex(128).encode())
    mark = ocpp.mark()
    await operate(ocpp, "UpdateFirmware", {"location": location, "retrieveDate": _now()})
    seen = await _statuses(ocpp, "FirmwareStatusNotification", mark, {"Installed", "InstallationFailed"},
                           FIRMWARE16.notifications_answered)
    if seen[-1] != "InstallationFailed":
        raise HarnessError(f"the harness's charge point did not fail the installation: {seen}")


@checks(*ASKED16, FIRMWARE16.download_failed, FIRMWARE16.notifications_answered,
        cs=TC("TC_044_2_CS"), csms=TC("TC_044_2_CSMS"))
async def test_firmware_that_cannot_be_downloaded_fails(ocpp, depot):
    """UpdateFirmware of a file the harness does not serve (404), no retries: Downloading, then DownloadFailed."""
    mark = ocpp.mark()
    await operate(ocpp, "UpdateFirmware", {"location": depot.url_of(f"missing-{secrets.token_hex(4)}.bin"),
                                           "retrieveDate": _now(), "retries": 0})
    seen = await _statuses(ocpp, "FirmwareStatusNotification", mark, {"DownloadFailed", "Installed"},
                           FIRMWARE16.download_failed)
    require(seen[-1] == "DownloadFailed" and "Installing" not in seen, FIRMWARE16.download_failed,
            "a firmware the location does not have was not reported DownloadFailed", expected="... DownloadFailed",
            actual=seen)


@checks(*ASKED16, FIRMWARE16.download_failed, FIRMWARE16.retried, FIRMWARE16.notifications_answered)
async def test_failing_download_is_retried(ocpp, depot):
    """UpdateFirmware of a file the harness does not serve (404), retries 2, retryInterval 2 s: the location is
    asked again, 2 s apart at the soonest, then DownloadFailed. ``retries`` is read both ways the text allows:
    the tries in all, or the tries after the first (2 or 3 requests)."""
    name = f"missing-{secrets.token_hex(4)}.bin"
    mark = ocpp.mark()
    await operate(ocpp, "UpdateFirmware", {"location": depot.url_of(name), "retrieveDate": _now(),
                                           "retries": RETRIES, "retryInterval": RETRY_INTERVAL})
    seen = await _statuses(ocpp, "FirmwareStatusNotification", mark, {"DownloadFailed", "Installed"},
                           FIRMWARE16.download_failed)
    check_equal(FIRMWARE16.download_failed, "the last FirmwareStatusNotification status", "DownloadFailed", seen[-1])
    if ocpp.is_sut(CSMS):
        return
    times = [at for requested, at in depot.requested if requested == name]
    require(len(times) in (RETRIES, RETRIES + 1), FIRMWARE16.retried, f"the location was asked {len(times)} "
            f"times with retries {RETRIES}", expected=f"{RETRIES} or {RETRIES + 1} requests", actual=len(times))
    gaps = [later - earlier for earlier, later in zip(times, times[1:])]
    require(all(gap >= RETRY_INTERVAL - TOLERANCE for gap in gaps), FIRMWARE16.retried,
            f"a retry came sooner than retryInterval {RETRY_INTERVAL} s", expected=f">= {RETRY_INTERVAL} s apart",
            actual=[f"{gap:.2f} s" for gap in gaps])


@checks(*ASKED16, FIRMWARE16.diagnostics_sequence, FIRMWARE16.notifications_answered,
        cs=TC("TC_045_1_CS"), csms=TC("TC_045_1_CSMS"))
async def test_diagnostics_are_uploaded(ocpp, depot):
    """GetDiagnostics to the harness's upload location: fileName, Uploading, Uploaded, and the file arrives."""
    mark = ocpp.mark()
    exchange = await operate(ocpp, "GetDiagnostics", {"location": depot.upload_url})
    name = (exchange.result or {}).get("fileName")
    require(name, FIRMWARE16.diagnostics_sequence, "GetDiagnostics.conf names no file", expected="fileName",
            actual=exchange.result)
    seen = await _statuses(ocpp, "DiagnosticsStatusNotification", mark, {"Uploaded", "UploadFailed"},
                           FIRMWARE16.diagnostics_sequence)
    check_equal(FIRMWARE16.diagnostics_sequence, "DiagnosticsStatusNotification statuses", ["Uploading", "Uploaded"],
                seen)
    if ocpp.is_sut(CS):
        require(name in depot.uploads, FIRMWARE16.diagnostics_sequence, "the diagnostics file did not arrive at the "
                "location", expected=name, actual=sorted(depot.uploads))


@checks(*ASKED16, FIRMWARE16.upload_failed, FIRMWARE16.notifications_answered, cs=TC("TC_045_2_CS"))
async def test_diagnostics_upload_that_is_refused_fails(ocpp, depot):
    """GetDiagnostics to a location that refuses uploads (the harness's download directory): UploadFailed."""
    mark = ocpp.mark()
    await operate(ocpp, "GetDiagnostics", {"location": depot.url_of("") + "read-only"})
    seen = await _statuses(ocpp, "DiagnosticsStatusNotification", mark, {"Uploaded", "UploadFailed"},
                           FIRMWARE16.upload_failed)
    check_equal(FIRMWARE16.upload_failed, "the last DiagnosticsStatusNotification status", "UploadFailed", seen[-1])

