"""SIGNEDFIRMWARE16 — secure firmware update in the 1.6 security extension (the OCA white paper "Improved security
for OCPP 1.6-J", L01): the central system sends SignedUpdateFirmware.req (a requestId, the firmware's location and
retrieveDateTime, the firmware signing certificate and the signature of the file), the charge point checks the
certificate before it accepts, downloads the file, checks the signature over it and installs it, reporting every
state with SignedFirmwareStatusNotification.req carrying the requestId; a certificate or a signature that fails is
answered InvalidCertificate or reported InvalidSignature, each with its security event. ExtendedTriggerMessage
FirmwareStatusNotification asks for the last state (Idle once Installed).

The harness signs with the run's PKI (``harness.pki``): a manufacturer root, a firmware signing certificate it
issued directly (the white paper's remarks: no intermediate certificates), RSA-PSS with SHA-256 over the whole file
(L01.FR.04 allows RSA-PSS or ECSchnorr; the harness takes RSA-PSS). A charge point under test installs what it is
sent: the profile's ``[firmware]`` gives its own image, its manufacturer's signing certificate and the signature
(the harness serves the image; an invalid signature is the harness's over another file, which that certificate does
not verify). Without them it is first given the run's manufacturer root with InstallCertificate
ManufacturerRootCertificate (deleted again when the test ends; one that refuses it cannot play the test: not
applicable) and a stand-in image signed by the run. A central system under test is asked (actuator
``signed_update_firmware``) to send the firmware, certificate and signature the test made, and must send them as
asked (L01.FR.11: the signing certificate included); the requestId is its own.

Readings where the texts are silent: the states of one update come in the order of the white paper's Figure 14
(Downloading, Downloaded, SignatureVerified, InstallScheduled, Installing, InstallRebooting, Installed; the optional
ones may be left out, Installing too, L01.FR.22); a charge point that answers Rejected (busy) makes the test not
applicable; the security event may come before or after the status notification. docs/requirements/security.md."""

import secrets
from datetime import timedelta

import pytest

from harness import clock, pki
from harness.errors import ConfigError, NotApplicable
from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP16, TC, case, checks
from harness.transport.files import FileDepot
from harness.usecases.certificates import SecurityEvents
from harness.usecases.operations import ASKED16, operate, status_of
from harness.verdict import check_equal, require

WP = "OCPP 1.6 security whitepaper ed. 3"
ORDER = ("DownloadScheduled", "Downloading", "DownloadPaused", "Downloaded", "SignatureVerified", "InstallScheduled",
         "Installing", "InstallRebooting", "Installed")
FAILED = ("DownloadFailed", "InvalidSignature", "InstallationFailed", "InstallVerificationFailed")
FINAL = frozenset({"Installed", *FAILED})
SCHEDULED = 20     # seconds from now to the installDateTime of the scheduled installation
# the same, asked of the harness's own charge point by a central system under test: the harness's choice, which
# costs a real run only time (it held a parallel run's worker 20 s)
OWN_SCHEDULED = 8
TOLERANCE = 2.0    # seconds a charge point's clock may run ahead of the harness's


class SIGNEDFIRMWARE16(RuleTable):
    """The rules of SIGNEDFIRMWARE16 (the white paper's L01)."""
    states = must(f"{WP} L01.FR.01; FirmwareStatusEnumType", "the charge point reports each state of the update "
                  "with SignedFirmwareStatusNotification: Downloading, Downloaded, then Installed, in the order of "
                  "the update (Installing and the other intermediate states where it enters them)", by=CS)
    downloaded = must(f"{WP} L01.FR.01 (Downloaded: the firmware has been downloaded), L01.FR.04",
                      "the firmware reported Downloaded was fetched from the location given", by=CS)
    request_id = must(f"{WP} L01.FR.10, L01.FR.21", "every SignedFirmwareStatusNotification of the update carries "
                      "the requestId of the SignedUpdateFirmware that started it", by=CS)
    valid_accepted = should(f"{WP} UpdateFirmwareStatusEnumType; L01.FR.23 (no SHALL makes it accept)",
                            "a request with a valid signing certificate of a trusted manufacturer root is Accepted",
                            by=CS)
    certificate_refused = must(f"{WP} L01.FR.23, L01.FR.24", "a signing certificate that is not valid (of an authority "
                               "the charge point does not trust, or expired) is answered InvalidCertificate, and "
                               "nothing is downloaded", by=CS)
    certificate_reported = must(f"{WP} L01.FR.02", "a charge point that refuses the signing certificate reports the "
                                "security event InvalidFirmwareSigningCertificate", by=CS)
    signature_refused = must(f"{WP} L01.FR.04, L01.FR.12; FirmwareStatusEnumType (InvalidSignature)",
                             "a firmware whose signature does not verify is reported InvalidSignature and not "
                             "installed", by=CS)
    signature_reported = must(f"{WP} L01.FR.03", "a charge point that enters InvalidSignature reports the security "
                              "event InvalidFirmwareSignature", by=CS)
    download_failed = must(f"{WP} L01.FR.01; FirmwareStatusEnumType (DownloadFailed)",
                           "a firmware that cannot be downloaded is reported DownloadFailed, and nothing installed",
                           by=CS)
    idle_after_installed = must(f"{WP} L01.FR.28; MessageTriggerEnumType (FirmwareStatusNotification)",
                                "ExtendedTriggerMessage FirmwareStatusNotification after Installed is followed by a "
                                "SignedFirmwareStatusNotification with status Idle", by=CS)
    last_status = must(f"{WP} L01.FR.29", "ExtendedTriggerMessage FirmwareStatusNotification after any other last "
                       "status is followed by a SignedFirmwareStatusNotification with that status", by=CS)
    scheduled = must(f"{WP} L01.FR.16, L01.FR.17", "a firmware whose installDateTime is in the future is reported "
                     "InstallScheduled once verified and installed at that time, not before", by=CS)
    updated_reported = must(f"{WP} A04.FR.01; section 8 (FirmwareUpdated is a critical event)",
                            "a charge point that installed a firmware reports the security event FirmwareUpdated",
                            by=CS)
    answered = should(f"OCPP-J (a CALL is answered); {WP} 5.20 SignedFirmwareStatusNotification.conf",
                      "the central system answers SignedFirmwareStatusNotification", by=CSMS)


pytestmark = case("SIGNEDFIRMWARE16", block="Security (1.6)", roles=("csms", "cs"), protocols=OCPP16,
                  requires=["advanced_security", "firmware_management"])


def _now() -> str:
    return (clock.utcnow() - timedelta(seconds=1)).isoformat(timespec="seconds").replace("+00:00", "Z")


async def _depot(ocpp) -> FileDepot:
    files = await FileDepot(ocpp.wirelog).start()
    ocpp.undo("stop the file server", files.stop)
    return files


OWN = ("firmware.signed_file", "firmware.signing_certificate", "firmware.signature")


def _own(ocpp) -> bool:
    """The charge point under test's own signed firmware is given ([firmware]: all three keys, or none)."""
    given = [key for key in OWN if ocpp.profile.get(key) is not None]
    if given and len(given) < len(OWN):
        raise ConfigError(f"[firmware] gives {', '.join(given)}: give signed_file, signing_certificate and "
                          "signature together (the image, its manufacturer's signing certificate, the signature)")
    return ocpp.is_sut(CS) and bool(given)


async def _trusted(ocpp) -> None:
    """A charge point under test is given the run's manufacturer root (the prerequisite; deleted at the end),
    unless the profile gives its own signed firmware."""
    if not ocpp.is_sut(CS) or _own(ocpp):
        return
    root = pki.pem_text(ocpp.pki().manufacturer.certificate)
    exchange = await ocpp.call_sut("InstallCertificate", {"certificateType": "ManufacturerRootCertificate",
                                                          "certificate": root})
    if status_of(exchange) != "Accepted":
        raise NotApplicable(f"the charge point answered InstallCertificate of the harness's manufacturer root "
                            f"{status_of(exchange)!r} (the prerequisite of a signed firmware it can verify)")


def _firmware(ocpp, depot: FileDepot, *, signature: str = "valid", certificate: str = "valid",
              served: bool = True) -> tuple[str, dict]:
    """A firmware file offered by ``depot`` (or not, ``served``), and the FirmwareType naming it: its signing
    certificate ``valid``, of an ``other_root`` or ``expired``; its signature ``valid`` or of another file."""
    name = f"signed-firmware-{secrets.token_hex(4)}.bin"
    content = secrets.token_hex(256).encode()   # text: the wire log stays readable
    run = ocpp.pki()
    if _own(ocpp):
        content = ocpp.profile.file_path("firmware.signed_file").read_bytes()
        if certificate == "valid":
            own = {"signingCertificate": ocpp.profile.file_path("firmware.signing_certificate").read_text(),
                   "signature": ocpp.profile.get("firmware.signature") if signature == "valid" else
                   pki.sign_firmware(run.firmware_signer().key, content + b"\n(another build)")}
            return name, {"location": depot.offer(name, content) if served else depot.url_of(name),
                          "retrieveDateTime": _now()} | own
    location = depot.offer(name, content) if served else depot.url_of(name)
    if certificate == "valid":
        signer = run.firmware_signer()
    else:
        authority = pki.Authority.root("Unknown Manufacturer", "Nobody", kind=pki.RSA) \
            if certificate == "other_root" else run.manufacturer
        signer = authority.issue("EVSE Conformance Firmware Signing", expired=certificate == "expired", kind=pki.RSA)
    signed = content if signature == "valid" else content + b"\n(another build)"
    return name, {"location": location, "retrieveDateTime": _now(),
                  "signingCertificate": pki.pem_text(signer.certificate),
                  "signature": pki.sign_firmware(signer.key, signed)}


async def _update(ocpp, firmware: dict, retries: int | None = None):
    """SignedUpdateFirmware sent (by the harness, or by the central system under test as asked, its requestId its
    own): its exchange."""
    payload = {"requestId": secrets.randbelow(10 ** 6) + 1, "firmware": firmware}
    if retries is not None:
        payload["retries"] = retries
    return await operate(ocpp, "SignedUpdateFirmware", payload, own=("requestId",))


def _accepted(ocpp, exchange) -> int:
    """The update's requestId, once the charge point accepted it (Rejected: busy, not applicable)."""
    status = status_of(exchange)
    if status == "Rejected":
        raise NotApplicable("the charge point answered SignedUpdateFirmware Rejected")
    if ocpp.is_sut(CS):
        check_equal(SIGNEDFIRMWARE16.valid_accepted, "SignedUpdateFirmware.conf status", "Accepted", status)
    return exchange.request["requestId"]


async def _statuses(ocpp, after: int, rule, request_id: int, timeout: float | None = None) -> list[str]:
    """The statuses of the SignedFirmwareStatusNotifications from ``after`` until a final one (each within
    ``timeout``), each judged answered and carrying ``request_id``."""
    seen, start = [], after
    while not seen or seen[-1].request["status"] not in FINAL:
        sent = await ocpp.expect("SignedFirmwareStatusNotification", sender=CS, after=start, rule=rule,
                                 timeout=timeout)
        if ocpp.is_sut(CSMS):
            require(sent.error is None, SIGNEDFIRMWARE16.answered, "SignedFirmwareStatusNotification was refused",
                    expected="SignedFirmwareStatusNotification.conf", actual=sent.error)
        seen.append(sent)
        start = ocpp.mark_after(sent)
    if ocpp.is_sut(CS):
        ids = [s.request.get("requestId") for s in seen]
        check_equal(SIGNEDFIRMWARE16.request_id, "SignedFirmwareStatusNotification requestIds",
                    [request_id] * len(seen), ids)
    return [s.request["status"] for s in seen]


def _in_order(statuses: list[str]) -> bool:
    ranks = [ORDER.index(s) for s in statuses if s in ORDER]
    return ranks == sorted(ranks) and len(set(ranks)) == len(ranks)


async def _event(ocpp, kind: str, after: int, rule, timeout: float | None = None) -> None:
    """The security event ``kind`` the charge point reports (in any order with its status notification; within
    ``timeout``); the central system under test must confirm it."""
    sent = await ocpp.expect("SecurityEventNotification", sender=CS, after=after, rule=rule, timeout=timeout,
                             where=lambda payload: payload.get("type") == kind)
    if ocpp.is_sut(CSMS):
        require(sent.error is None, SecurityEvents.confirmed, f"SecurityEventNotification {kind} was refused",
                expected="SecurityEventNotification.conf", actual=sent.error)


async def _installed(ocpp) -> int:
    """A valid signed firmware installed, judged: the update's requestId."""
    await _trusted(ocpp)
    depot = await _depot(ocpp)
    name, firmware = _firmware(ocpp, depot)
    mark = ocpp.mark()
    request_id = _accepted(ocpp, await _update(ocpp, firmware))
    seen = await _statuses(ocpp, mark, SIGNEDFIRMWARE16.states, request_id)
    if ocpp.is_sut(CS):
        require(seen[-1] == "Installed" and _in_order(seen) and {"Downloading", "Downloaded"} <= set(seen),
                SIGNEDFIRMWARE16.states, "the update was not reported in the order of its states",
                expected="Downloading, Downloaded, (SignatureVerified, Installing,) Installed", actual=seen)
        require(name in depot.fetched, SIGNEDFIRMWARE16.downloaded, "the firmware was reported Downloaded but never "
                "fetched from the location", expected=f"GET {firmware['location']}", actual=depot.fetched)
    return request_id


async def _triggered_status(ocpp) -> dict:
    """ExtendedTriggerMessage FirmwareStatusNotification (NotImplemented or Rejected: not applicable): the
    SignedFirmwareStatusNotification that follows."""
    exchange = await operate(ocpp, "ExtendedTriggerMessage", {"requestedMessage": "FirmwareStatusNotification"})
    if status_of(exchange) != "Accepted":
        raise NotApplicable(f"the charge point answered ExtendedTriggerMessage FirmwareStatusNotification "
                            f"{status_of(exchange)!r}")
    sent = await ocpp.expect("SignedFirmwareStatusNotification", sender=CS, after=ocpp.mark_after(exchange),
                             rule=SIGNEDFIRMWARE16.last_status)
    if ocpp.is_sut(CSMS):
        require(sent.error is None, SIGNEDFIRMWARE16.answered, "the triggered SignedFirmwareStatusNotification was "
                "refused", expected="SignedFirmwareStatusNotification.conf", actual=sent.error)
    return sent.request


@checks(*ASKED16, SIGNEDFIRMWARE16.valid_accepted, SIGNEDFIRMWARE16.states, SIGNEDFIRMWARE16.downloaded,
        SIGNEDFIRMWARE16.request_id, SIGNEDFIRMWARE16.answered, cs=TC("TC_080_CS"), csms=TC("TC_080_CSMS"))
async def test_signed_firmware_is_installed(ocpp):
    """A firmware signed with the run's signing certificate: Accepted, Downloading, Downloaded, ..., Installed, each
    with the requestId, the file fetched from the location."""
    await _installed(ocpp)


@checks(*ASKED16, SIGNEDFIRMWARE16.valid_accepted, SIGNEDFIRMWARE16.signature_refused,
        SIGNEDFIRMWARE16.signature_reported, SIGNEDFIRMWARE16.request_id, SIGNEDFIRMWARE16.answered,
        SecurityEvents.confirmed, cs=TC("TC_081_CS"), csms=TC("TC_081_CSMS"))
async def test_invalid_signature_is_reported_and_not_installed(ocpp):
    """The signature of another file: Downloading, Downloaded, InvalidSignature (nothing installed), and the
    security event InvalidFirmwareSignature, both confirmed by the central system."""
    await _trusted(ocpp)
    depot = await _depot(ocpp)
    _, firmware = _firmware(ocpp, depot, signature="other_file")
    mark = ocpp.mark()
    request_id = _accepted(ocpp, await _update(ocpp, firmware))
    seen = await _statuses(ocpp, mark, SIGNEDFIRMWARE16.signature_refused, request_id)
    if ocpp.is_sut(CS):
        require(seen[-1] == "InvalidSignature" and not {"Installing", "Installed"} & set(seen),
                SIGNEDFIRMWARE16.signature_refused, "a firmware whose signature does not verify was not reported "
                "InvalidSignature", expected="... Downloaded, InvalidSignature", actual=seen)
    await _event(ocpp, "InvalidFirmwareSignature", mark, SIGNEDFIRMWARE16.signature_reported)


@pytest.mark.parametrize("certificate", ["other_root", "expired"])
@checks(*ASKED16, SIGNEDFIRMWARE16.certificate_refused, SIGNEDFIRMWARE16.certificate_reported,
        SecurityEvents.confirmed)
async def test_invalid_signing_certificate_is_refused(ocpp, certificate):
    """A signing certificate of a manufacturer root the charge point does not know, or one that expired:
    InvalidCertificate, the security event InvalidFirmwareSigningCertificate, and the firmware never fetched."""
    await _trusted(ocpp)
    depot = await _depot(ocpp)
    name, firmware = _firmware(ocpp, depot, certificate=certificate)
    mark = ocpp.mark()
    exchange = await _update(ocpp, firmware)
    if ocpp.is_sut(CS):
        check_equal(SIGNEDFIRMWARE16.certificate_refused, f"SignedUpdateFirmware.conf status ({certificate} signing "
                    "certificate)", "InvalidCertificate", status_of(exchange))
    await _event(ocpp, "InvalidFirmwareSigningCertificate", mark, SIGNEDFIRMWARE16.certificate_reported)
    if ocpp.is_sut(CS):
        require(name not in depot.fetched and not ocpp.sent("SignedFirmwareStatusNotification", sender=CS, after=mark),
                SIGNEDFIRMWARE16.certificate_refused, "the charge point went on with a firmware whose signing "
                "certificate it refused", expected="no download", actual=depot.fetched)


@checks(*ASKED16, SIGNEDFIRMWARE16.download_failed, SIGNEDFIRMWARE16.request_id, SIGNEDFIRMWARE16.answered)
async def test_firmware_that_cannot_be_downloaded_fails(ocpp):
    """A location the harness does not serve (404), retries 0: Downloading, then DownloadFailed."""
    await _trusted(ocpp)
    depot = await _depot(ocpp)
    _, firmware = _firmware(ocpp, depot, served=False)
    mark = ocpp.mark()
    request_id = _accepted(ocpp, await _update(ocpp, firmware, retries=0))
    seen = await _statuses(ocpp, mark, SIGNEDFIRMWARE16.download_failed, request_id)
    require(seen[-1] == "DownloadFailed" and "Installing" not in seen, SIGNEDFIRMWARE16.download_failed,
            "a firmware the location does not have was not reported DownloadFailed", expected="... DownloadFailed",
            actual=seen)


@checks(*ASKED16, SIGNEDFIRMWARE16.states, SIGNEDFIRMWARE16.idle_after_installed, SIGNEDFIRMWARE16.answered)
async def test_trigger_after_installation_reports_idle(ocpp):
    """A signed firmware installed, then ExtendedTriggerMessage FirmwareStatusNotification: SignedFirmwareStatus-
    Notification Idle."""
    await _installed(ocpp)
    triggered = await _triggered_status(ocpp)
    check_equal(SIGNEDFIRMWARE16.idle_after_installed, "the triggered SignedFirmwareStatusNotification status",
                "Idle", triggered.get("status"))


@checks(*ASKED16, SIGNEDFIRMWARE16.signature_refused, SIGNEDFIRMWARE16.last_status, SIGNEDFIRMWARE16.answered)
async def test_trigger_after_invalid_signature_reports_it(ocpp):
    """A firmware refused for its signature, then ExtendedTriggerMessage FirmwareStatusNotification: the last status,
    InvalidSignature, with the update's requestId."""
    await _trusted(ocpp)
    depot = await _depot(ocpp)
    _, firmware = _firmware(ocpp, depot, signature="other_file")
    mark = ocpp.mark()
    request_id = _accepted(ocpp, await _update(ocpp, firmware))
    seen = await _statuses(ocpp, mark, SIGNEDFIRMWARE16.signature_refused, request_id)
    triggered = await _triggered_status(ocpp)
    check_equal(SIGNEDFIRMWARE16.last_status, "the triggered SignedFirmwareStatusNotification (status, requestId)",
                {"status": seen[-1], "requestId": request_id},
                {"status": triggered.get("status"), "requestId": triggered.get("requestId")})


@checks(*ASKED16, SIGNEDFIRMWARE16.states, SIGNEDFIRMWARE16.updated_reported, SecurityEvents.confirmed)
async def test_installed_firmware_is_reported_as_a_security_event(ocpp):
    """A signed firmware installed: the security event FirmwareUpdated follows (after the reboot, where the charge
    point reboots), confirmed by the central system."""
    mark = ocpp.mark()
    await _installed(ocpp)
    await _event(ocpp, "FirmwareUpdated", mark, SIGNEDFIRMWARE16.updated_reported,
                 timeout=ocpp.timeouts.connect + ocpp.timeouts.action)   # a reboot may come first


@checks(*ASKED16, SIGNEDFIRMWARE16.valid_accepted, SIGNEDFIRMWARE16.scheduled, SIGNEDFIRMWARE16.request_id,
        SIGNEDFIRMWARE16.answered)
async def test_installation_waits_for_install_date_time(ocpp):
    """installDateTime 20 s ahead (8 s for the harness's own charge point): ..., InstallScheduled, then Installing
    and Installed no sooner than that time."""
    await _trusted(ocpp)
    depot = await _depot(ocpp)
    _, firmware = _firmware(ocpp, depot)
    scheduled = SCHEDULED if ocpp.is_sut(CS) else OWN_SCHEDULED
    install_at = clock.utcnow() + timedelta(seconds=scheduled)
    firmware["installDateTime"] = install_at.isoformat(timespec="seconds").replace("+00:00", "Z")
    mark = ocpp.mark()
    request_id = _accepted(ocpp, await _update(ocpp, firmware))
    seen = await _statuses(ocpp, mark, SIGNEDFIRMWARE16.scheduled, request_id,
                           timeout=scheduled + ocpp.timeouts.action)
    if ocpp.is_sut(CSMS):
        return
    early = (install_at - clock.utcnow()).total_seconds()
    require(seen[-1] == "Installed" and "InstallScheduled" in seen and _in_order(seen), SIGNEDFIRMWARE16.scheduled,
            "a firmware to install later was not reported InstallScheduled before it was installed",
            expected="..., InstallScheduled, (Installing,) Installed", actual=seen)
    require(early <= TOLERANCE, SIGNEDFIRMWARE16.scheduled, "the firmware was installed before its installDateTime",
            expected=f"Installed at {firmware['installDateTime']} or later", actual=f"{early:.0f} s before it")
