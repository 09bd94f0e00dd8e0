"""Firmware Management (1.6): UpdateFirmware and GetDiagnostics, with the notifications that report them.

Charge point 1.6 (spec 002 What the service does 4; Enumerations FirmwareStatus, DiagnosticsStatus):
- UpdateFirmware is answered at once; from retrieveDate on, the firmware is downloaded from location
  (http only: ``harness.transport.files``), reported Downloading, then Downloaded, Installing,
  Installed; the charge point then reboots and boots again. A download that fails is tried again
  ``retries`` times, ``retryInterval`` seconds apart, and reported DownloadFailed when none succeeds.
- GetDiagnostics is answered with the fileName it will upload; the file is uploaded (PUT) to location
  + fileName, reported Uploading, then Uploaded, or UploadFailed.

Central system 1.6: both as actuator actions; DiagnosticsStatusNotification and
FirmwareStatusNotification answered empty.

The security extension's secure update (SignedUpdateFirmware, SignedFirmwareStatusNotification: the white paper's
L01) is its own pair of blocks below, ``SignedFirmwareStation16`` and ``SignedFirmwareCsms16``.
"""

from __future__ import annotations

import asyncio
import itertools

from harness import clock, pki
from harness.ocpp.meter16 import parse_time
from harness.reference.base import StationSession
from harness.reference.blocks.certificates import run_pki
from harness.reference.blocks.remote_trigger import IDLE
from harness.reference.common import V16, Block
from harness.transport.ws import CallFailed


class FirmwareStation16(Block):
    versions = V16
    requires = ("ProvisioningStation16",)
    configurable = frozenset({"installation_fails"})
    installation_fails = False   # True: Installing ends InstallationFailed, and the charge point keeps running

    async def _notify(self, action: str, status: str) -> None:
        if self.online:
            await self.call(action, {"status": status})

    def on_UpdateFirmware(self, _: None, payload: dict) -> dict:
        self.background.spawn(self._update(payload["location"], parse_time(payload["retrieveDate"]),
                                           payload.get("retries", 0), payload.get("retryInterval", 0)))
        return {}

    async def _update(self, location: str, retrieve_at, retries: int, retry_interval: int) -> None:
        await asyncio.sleep(max(0.0, (retrieve_at - clock.utcnow()).total_seconds()))
        for attempt in range(retries + 1):
            await self._notify("FirmwareStatusNotification", "Downloading")
            if await self._transfer("GET", location):
                break
            if attempt < retries:
                await asyncio.sleep(retry_interval)
        else:
            await self._notify("FirmwareStatusNotification", "DownloadFailed")
            return
        for status in ("Downloaded", "Installing", "Installed"):
            if status == "Installed" and self.installation_fails:
                await self._notify("FirmwareStatusNotification", "InstallationFailed")
                return
            await self._notify("FirmwareStatusNotification", status)
        self.registration = None   # the reboot: the reconnection (provisioning's supervisor) boots again
        if self.connection is not None:
            await self.connection.close()

    def on_GetDiagnostics(self, _: None, payload: dict) -> dict:
        name = f"diagnostics-{self.identity}.log"
        self.background.spawn(self._upload(payload["location"].rstrip("/") + "/" + name))
        return {"fileName": name}

    async def _upload(self, url: str) -> None:
        await asyncio.sleep(0)   # the GetDiagnostics.conf goes out first
        await self._notify("DiagnosticsStatusNotification", "Uploading")
        body = f"reference charge point {self.identity}: no faults logged\n".encode()
        uploaded = await self._transfer("PUT", url, body)
        await self._notify("DiagnosticsStatusNotification", "Uploaded" if uploaded else "UploadFailed")

    async def _transfer(self, method: str, url: str, body: bytes = b"") -> bool:
        """One HTTP transfer; True when it succeeded (a 2xx answer)."""
        from harness.transport.http import HttpClient, NoAnswer   # httpx when a station uploads (see OCSP below)
        client = HttpClient(wirelog=self.wirelog, channel="files")
        try:
            return 200 <= (await client.request(method, url, body=body)).status < 300
        except NoAnswer:
            return False
        finally:
            await client.close()


class FirmwareCsms16(Block):
    versions = V16

    def on_DiagnosticsStatusNotification(self, session: StationSession, payload: dict) -> dict:
        return {}

    def on_FirmwareStatusNotification(self, session: StationSession, payload: dict) -> dict:
        return {}

    async def act_update_firmware(self, location: str, retrieve_date: str, retries: int | None = None,
                                  retry_interval: int | None = None, station: str | None = None) -> None:
        optional = {"retries": retries, "retryInterval": retry_interval}
        self.send(station, "UpdateFirmware", {"location": location, "retrieveDate": retrieve_date}
                  | {k: v for k, v in optional.items() if v is not None})

    async def act_get_diagnostics(self, location: str, retries: int | None = None, retry_interval: int | None = None,
                                  station: str | None = None) -> None:
        optional = {"retries": retries, "retryInterval": retry_interval}
        self.send(station, "GetDiagnostics", {"location": location} | {k: v for k, v in optional.items()
                                                                         if v is not None})


# ---------------------------------------------------------------------------- the 1.6 security extension's L01
class SignedFirmwareStation16(Block):
    """Secure firmware update in 1.6 (the OCA white paper "Improved security for OCPP 1.6-J", L01;
    docs/requirements/security.md): SignedUpdateFirmware's signing certificate is checked first (PEM, valid now,
    issued directly by a manufacturer root the charge point trusts: the run's, and those installed as
    ManufacturerRootCertificate); one that fails is answered InvalidCertificate and reported
    (InvalidFirmwareSigningCertificate), nothing downloaded. Otherwise Accepted; from retrieveDateTime the file is
    downloaded (``retries`` more tries, ``retryInterval`` apart), its RSA-PSS SHA-256 signature checked with the
    certificate's key: SignedFirmwareStatusNotification Downloading, Downloaded, SignatureVerified, (InstallScheduled
    until a future installDateTime,) Installing, Installed, each with the requestId, and the security event
    FirmwareUpdated; or DownloadFailed; or InvalidSignature and the security event InvalidFirmwareSignature.
    ExtendedTriggerMessage FirmwareStatusNotification: the last status sent (with its requestId), Idle when
    none was or it was Installed (L01.FR.28-29)."""
    versions = V16
    requires = ("CertificatesStation", "RemoteTriggerStation16")
    precedes = ("RemoteTriggerStation16",)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.signed_firmware_sent: dict | None = None   # the last SignedFirmwareStatusNotification sent

    def firmware_certificate_problem(self, pem: str) -> str | None:
        """Why the signing certificate ``pem`` is not one to take (L01.FR.23), or None: valid now, issued directly
        by the run's manufacturer root or one installed as ManufacturerRootCertificate."""
        installed = [c for kind, c in self.installed if kind == "ManufacturerRootCertificate"]
        return pki.signing_certificate_problem(pem, [run_pki(self.profile).manufacturer.certificate, *installed],
                                               clock.utcnow())

    def firmware_signature_problem(self, pem: str, firmware: bytes, signature: str) -> str | None:
        """Why ``signature`` is not the signing certificate's signature over the whole file (L01.FR.04), or None."""
        return pki.firmware_signature_problem(pki.load_chain(pem)[0], firmware, signature)

    def on_SignedUpdateFirmware(self, _: None, payload: dict) -> dict:
        problem = self.firmware_certificate_problem(payload["firmware"]["signingCertificate"])
        if problem is not None:
            self.background.spawn(self.security_event("InvalidFirmwareSigningCertificate", problem))
            return {"status": "InvalidCertificate"}
        self.background.spawn(self._signed_update(payload))
        return {"status": "Accepted"}

    async def _signed_status(self, status: str, request_id: int) -> None:
        """A refused notification is the test's to judge; the update goes on."""
        self.signed_firmware_sent = {"status": status, "requestId": request_id}
        if self.online:
            try:
                await self.call("SignedFirmwareStatusNotification", dict(self.signed_firmware_sent))
            except CallFailed:
                pass

    async def _signed_update(self, payload: dict) -> None:
        await asyncio.sleep(0)   # the SignedUpdateFirmware.conf goes out first
        firmware, request_id = payload["firmware"], payload["requestId"]
        await asyncio.sleep(max(0.0, (parse_time(firmware["retrieveDateTime"]) - clock.utcnow()).total_seconds()))
        body = None
        for attempt in range(payload.get("retries", 0) + 1):
            await self._signed_status("Downloading", request_id)
            body = await self._download(firmware["location"])
            if body is not None:
                break
            if attempt < payload.get("retries", 0):
                await asyncio.sleep(payload.get("retryInterval", 0))
        if body is None:
            await self._signed_status("DownloadFailed", request_id)
            return
        await self._signed_status("Downloaded", request_id)
        problem = self.firmware_signature_problem(firmware["signingCertificate"], body, firmware["signature"])
        if problem is not None:
            await self._signed_status("InvalidSignature", request_id)
            await self.security_event("InvalidFirmwareSignature", problem)
            return
        await self._signed_status("SignatureVerified", request_id)
        install_at = parse_time(firmware["installDateTime"]) if "installDateTime" in firmware else None
        if install_at is not None and install_at > clock.utcnow():
            await self._signed_status("InstallScheduled", request_id)
            await asyncio.sleep((install_at - clock.utcnow()).total_seconds())
        await self._signed_status("Installing", request_id)
        await self._signed_status("Installed", request_id)
        await self.security_event("FirmwareUpdated")

    async def _download(self, url: str) -> bytes | None:
        """The file at ``url`` (http), or None when it could not be fetched (not a 2xx answer)."""
        from harness.transport.http import HttpClient, NoAnswer   # httpx when a charge point downloads
        client = HttpClient(wirelog=self.wirelog, channel="files")
        try:
            answer = await client.request("GET", url)
        except NoAnswer:
            return None
        finally:
            await client.close()
        return answer.response_body if 200 <= answer.status < 300 else None

    def triggered(self, message: str, payload: dict) -> bool:
        if message != "FirmwareStatusNotification":
            return super().triggered(message, payload)
        last = self.signed_firmware_sent
        now = dict(IDLE) if last is None or last["status"] == "Installed" else dict(last)
        self.background.spawn(self._send_after_answer("SignedFirmwareStatusNotification", now))
        return True

    async def _send_after_answer(self, action: str, payload: dict) -> None:
        await asyncio.sleep(0)   # the ExtendedTriggerMessage.conf goes out first
        await self.call(action, payload)


class SignedFirmwareCsms16(Block):
    """The central system's side of L01 (1.6 security extension): SignedUpdateFirmware as its operator's action
    (the requestId its own when none is given), the SignedFirmwareStatusNotifications answered."""
    versions = V16

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.firmware_requests = itertools.count(1)

    def on_SignedFirmwareStatusNotification(self, session: StationSession, payload: dict) -> dict:
        return {}

    async def act_signed_update_firmware(self, firmware: dict, request_id: int | None = None,
                                         retries: int | None = None, retry_interval: int | None = None,
                                         station: str | None = None) -> None:
        optional = {"retries": retries, "retryInterval": retry_interval}
        self.send(station, "SignedUpdateFirmware", {
            "requestId": next(self.firmware_requests) if request_id is None else request_id, "firmware": firmware}
            | {k: v for k, v in optional.items() if v is not None})
