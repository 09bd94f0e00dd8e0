"""Security (1.6 Authentication 3-4): the Basic-auth password is the charge point's 20-byte
AuthorizationKey, and the central system can rotate it.

Rotation (Authentication 4): the next boot is answered Pending, ChangeConfiguration sets
AuthorizationKey to a new key in hex, and after Accepted the central system closes the connection;
from then on only the new key opens a connection. The charge point uses an accepted new key as the
password of its next connection; a key the SUT accepted is the profile's key for every later test.
"""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

from harness.errors import HarnessError, PeerViolation
from harness.reference.base import StationSession
from harness.reference.common import V16, Block
from harness.ocpp.v16 import AUTHORIZATION_KEY
from harness.reference.v16.config import new_authorization_key
from harness.transport.ws import CallFailed


class SecurityStation16(Block):
    versions = V16

    def basic_auth_password(self) -> bytes | None:
        return self.profile.authorization_key

    def configuration_changed(self, key: str, value: str, status: str) -> None:
        super().configuration_changed(key, value, status)
        if status == "Accepted" and key.casefold() == AUTHORIZATION_KEY.casefold():
            self.password = bytes.fromhex(value)   # the next connection's Basic-auth password
            if self.identity == self.profile.identity:
                self.profile.key_rotated(self.password)


class SecurityCsms16(Block):
    versions = V16
    requires = ("ProvisioningCsms16",)
    configurable = frozenset({"rotate_on_boot"})

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.keys: dict[str, bytes] = {self.profile.identity: self.profile.authorization_key} \
            if self.profile.authorization_key else {}
        self.rotate_on_boot = False
        self.rotating: set[str] = set()   # the stations whose new key is sent and not yet answered

    def basic_auth_required(self) -> bool:
        return bool(self.profile.authorization_key)

    def check_password(self, identity: str, password: bytes) -> bool:
        key = self.keys.get(identity)
        return key is not None and secrets.compare_digest(password, key)

    def boot_status(self, session: StationSession, status: str) -> str:
        if session.identity in self.rotating:   # a boot retried while the new key waits for its answer
            return super().boot_status(session, "Pending")
        if not self.rotate_on_boot:
            return super().boot_status(session, status)
        self.rotate_on_boot = False
        self.rotating.add(session.identity)
        self.background.spawn(self.rotate_key(session))
        return super().boot_status(session, "Pending")

    async def rotate_key(self, session: StationSession) -> None:
        await asyncio.sleep(0)   # the Pending answer goes out first
        new = new_authorization_key(session.identity)
        try:
            answer = await session.connection.call("ChangeConfiguration", {"key": AUTHORIZATION_KEY, "value": new.hex()})
        except (CallFailed, PeerViolation, HarnessError):
            return
        finally:
            self.rotating.discard(session.identity)
        if answer["status"] == "Accepted":
            self.keys[session.identity] = new
            if session.identity == self.profile.identity:
                self.profile.key_rotated(new)
            await session.connection.close()

    async def act_rotate_authorization_key(self) -> None:
        """Rotate the station's key at its next boot (Authentication 4)."""
        self.rotate_on_boot = True
