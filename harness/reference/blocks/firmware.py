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
"""

from __future__ import annotations

import asyncio

from harness import clock
from harness.ocpp.meter16 import parse_time
from harness.reference.base import StationSession
from harness.reference.common import V16, Block


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
