"""Security: the Basic-auth password. In 1.6 (Authentication 3-4) it is the charge point's 20-byte
AuthorizationKey, and the central system can rotate it; in 2.x (A01, docs/requirements/security.md) the CSMS sets
SecurityCtrlr.BasicAuthPassword. Certificates and security events are the certificates block's.

Rotation (Authentication 4): the next boot is answered Pending, ChangeConfiguration sets
AuthorizationKey to a new key in hex, and after Accepted the central system closes the connection;
from then on only the new key opens a connection. The charge point uses an accepted new key as the
password of its next connection; a key the SUT accepted is the profile's key for every later test, until
the test that rotated it at a station under test puts the run's first key back (``key_put_back``).
"""

from __future__ import annotations

import asyncio
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import HarnessError, PeerViolation
from harness.reference.blocks.certificates import pki, run_pki
from harness.transport.tls import TlsEnd
from harness.reference.base import StationSession
from harness.wire import REDACTOR
from harness.reference.common import V2X, V16, Block
from harness.ocpp.v16 import AUTHORIZATION_KEY, register_key
from harness.reference.v16.config import new_authorization_key
from harness.transport.ws import CallFailed, Handshake


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
        self.keys: dict[str, bytes] = {identity: key for identity in self.profile.known_identities()
                                       if (key := self.profile.authorization_key_of(identity))}
        self.rotate_on_boot = False   # the next station to boot gets a new key (the harness's side: its one station)
        self.rotate_for: set[str] = set()   # these stations do, at their next boot (an actuator's "station")
        self.rotating: set[str] = set()   # the stations whose new key is sent and not yet answered

    def basic_auth_required(self) -> bool:
        return bool(self.profile.authorization_key)

    def check_password(self, identity: str, password: bytes) -> bool:
        key = self.keys.get(identity)
        return key is not None and secrets.compare_digest(password, key)

    def boot_status(self, session: StationSession, status: str) -> str:
        if session.identity in self.rotating:   # a boot retried while the new key waits for its answer
            return super().boot_status(session, "Pending")
        if not self.rotate_on_boot and session.identity not in self.rotate_for:
            return super().boot_status(session, status)
        self.rotate_on_boot = False
        self.rotate_for.discard(session.identity)
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
            if session.identity in self.profile.known_identities():
                self.profile.rotated_key[session.identity] = new
            await session.connection.close()

    async def key_put_back(self, connection: Any, identity: str, key: bytes) -> None:
        """Undo of a rotation at a station under test, which keeps its key beyond the run: ChangeConfiguration
        AuthorizationKey back to ``key``, the one the run started with. Once Accepted it is the station's key here
        and in the profile again, and the connection closes (Authentication 4): the station's next one uses it."""
        answer = await connection.call("ChangeConfiguration", {"key": AUTHORIZATION_KEY, "value": key.hex()})
        if answer["status"] != "Accepted":
            raise HarnessError(f"the station answered {answer['status']!r} to its AuthorizationKey from before the "
                               f"rotation: it keeps the rotated key, and the next run's connections are refused "
                               f"until the station's key is [station] authorization_key again")
        self.keys[identity] = key
        self.profile.rotated_key.pop(identity, None)
        await connection.close()

    async def act_rotate_authorization_key(self, station: str | None = None) -> None:
        """Rotate the station's key at its next boot (Authentication 4): ``station``'s, else the next to boot."""
        if station is None:
            self.rotate_on_boot = True
        else:
            self.rotate_for.add(station)

    async def act_set_authorization_key(self, station: str, key: str) -> None:
        """The operator sets ``station``'s AuthorizationKey (``key``, hex) in the central system, as when it was
        provisioned: from now on that key opens its connections (a rotation's undoing: SECURITY16)."""
        value = bytes.fromhex(key)
        register_key(value)
        self.keys[station] = value
        if station in self.profile.known_identities():
            self.profile.rotated_key[station] = value


PASSWORD_LENGTH = (16, 64)   # facts ocpp-j.md: 16-40 characters, up to the configured maximum (40-64) by errata
PASSWORD = ("SecurityCtrlr", "BasicAuthPassword")
PRIORITY = ("OCPPCommCtrlr", "NetworkConfigurationPriority")


def new_password(identity: str, length: int = 32) -> str:
    """A fresh BasicAuthPassword of ``length`` characters, registered (raw, base64, Basic header) before it is
    used."""
    password = secrets.token_urlsafe(length)[:length]
    REDACTOR.register(password, identity=identity)
    return password


@dataclass(slots=True)
class SecurityHome:
    """A05/B10: what the station's first connection was, and the profile of the one before the connection it opens."""
    profile: int | None = None    # the security profile of the connection it first opened (slot 1)
    tls: TlsEnd | None = None     # that connection's TLS
    before: int = 1               # the security profile before the connection it opens now


class SecurityStation2x(Block):
    """A01: a BasicAuthPassword of 16 to 64 characters set by SetVariables is Accepted, the station closes its
    connection once the answer is out and reconnects with it (the offline block reconnects); any other length is
    Rejected. (Its certificates are the certificates block's.)

    A05: a NetworkConfigurationPriority naming a slot of a lower security profile than the connection's is
    Rejected (A05.FR.03), and one naming a slot of profile 2 or 3 while no CSMSRootCertificate is installed
    (A05.FR.02). Connecting through a slot of profile 2, it speaks TLS and trusts the CSMSRootCertificates
    installed; once connected at a higher profile than before, it drops the slots of lower profiles (the one
    it first connected with among them) from its profiles and its priority (A05.FR.06)."""
    versions = V2X
    requires = ("CertificatesStation", "ProvisioningStation2x")
    precedes = ("DeviceModelStation2x",)
    password_lengths = PASSWORD_LENGTH

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.security_home = SecurityHome()   # one attribute for three: a load station's keys stay shared (common.store)

    # ------------------------------------------------------------ A01: the password
    def variable_written(self, component: str, name: str, value: str) -> str | None:
        if (component, name) == PRIORITY:
            return self._priority_written(value)
        if (component, name) != PASSWORD:
            return super().variable_written(component, name, value)
        REDACTOR.register(value, identity=self.identity)
        if not self.password_lengths[0] <= len(value) <= self.password_lengths[1]:
            return "Rejected"
        self.password = value   # the next connection's Basic-auth password
        if self.identity == self.profile.identity:
            self.profile.password_rotated(value)
        self.background.spawn(self._reconnect_with_new_password())
        return "Accepted"

    # ------------------------------------------------------------ A05: the security profile's upgrade
    def _priority_written(self, value: str) -> str | None:
        """A05.FR.04: a NetworkConfigurationPriority naming a stored profile of a lower security profile than the
        connection's is Rejected; any other is left to the device model, whose check (the provisioning block's
        ``variable_fits``: each slot stored, or slot 1) and store it goes through like every variable."""
        try:
            slots = [int(slot) for slot in value.split(",")]
        except ValueError:
            return "Rejected"
        current = self.current_security_profile()
        named = [self._slot_profile(slot) for slot in slots if self._slot_profile(slot) is not None]
        if any(profile < current for profile in named):
            return "Rejected"
        if any(profile >= 2 for profile in named) and not self._csms_roots():   # A05.FR.02
            return "Rejected"
        return super().variable_written(PRIORITY[0], PRIORITY[1], value)

    def _slot_profile(self, slot: int) -> int | None:
        """The security profile of ``slot``: its stored profile's, for slot 1 without one the first connection's."""
        if slot in self.network_profiles:
            return self.network_profiles[slot]["securityProfile"]
        return self.security_home.profile if slot == 1 else None

    def _csms_roots(self) -> list:
        return [certificate for kind, certificate in self.installed if kind == "CSMSRootCertificate"]

    async def connect(self, csms_url: str, **options: Any) -> Handshake:
        """A slot of security profile 2 is reached over TLS, trusting the CSMS roots installed; connected at a
        higher profile than before, the slots of lower profiles go (A05.FR.06)."""
        home = self.security_home
        if home.profile is None:
            home.profile, home.tls = self.current_security_profile(), self.tls
        home.before = self.current_security_profile()
        slot = next((p for p in self.network_profiles.values() if p["ocppCsmsUrl"] == csms_url), None)
        if slot is not None and slot["securityProfile"] == 2 and self._csms_roots():
            self.tls = TlsEnd(trust=self._trusted_roots())
        elif slot is not None and slot["securityProfile"] == 1:
            self.tls = None
        elif slot is None and self.network_profiles and csms_url == self.provisioning_home_url:   # B10 fallback
            self.tls = self.security_home.tls
        return await super().connect(csms_url, **options)

    async def connected(self, connection: Any) -> None:
        """Connected (before its boot) at a higher profile than before: the lower slots go."""
        if self.current_security_profile() > self.security_home.before:
            self._drop_lower_slots(self.current_security_profile())
        await super().connected(connection)

    def _trusted_roots(self) -> Path:
        """The CSMS roots installed, in one PEM file of the run's PKI directory (what TLS verifies against)."""
        path = run_pki(self.profile).directory / f"csms-roots-{os.getpid()}-{id(self)}.pem"
        path.write_text("".join(pki.pem_text(certificate) for certificate in self._csms_roots()))
        return path

    def _drop_lower_slots(self, current: int) -> None:
        """A05.FR.06: the profiles of a lower security profile than ``current`` are removed, and their slots from
        NetworkConfigurationPriority (slot 1 without a stored profile is the first connection's)."""
        for slot in [s for s, p in self.network_profiles.items() if p["securityProfile"] < current]:
            del self.network_profiles[slot]
        kept = [entry for entry in self.variable(*PRIORITY).split(",")
                if entry.strip().isdigit() and (self._slot_profile(int(entry)) or 0) >= current]
        if kept:
            self.variables[PRIORITY] = ",".join(kept)

    async def _reconnect_with_new_password(self) -> None:
        await asyncio.sleep(0)   # the SetVariablesResponse goes out first
        if self.connection is not None:
            await self.connection.close()


class SecurityCsms2x(Block):
    """A01, the CSMS's side: the operator's new password, admitted alone once the station accepted it. A05: once a
    station connected at a security profile, a connection of a lower one is refused (HTTP 403)."""
    versions = V2X
    password_length = 32

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.security_reached: dict[str, int] = {}   # identity → the highest security profile it connected at

    def accepts_profile(self, identity: str, security_profile: int) -> bool:
        reached = self.security_reached.get(identity, security_profile)
        if security_profile < reached:
            return False
        self.security_reached[identity] = security_profile
        return super().accepts_profile(identity, security_profile)

    async def act_rotate_basic_auth_password(self, station: str | None = None) -> None:
        """A01: the operator sets a new password: SetVariables SecurityCtrlr.BasicAuthPassword; once Accepted
        it is the only password the CSMS admits for the station (the old one no longer)."""
        session = self.session(station)
        self.background.spawn(self._rotate_password(session))

    async def password_put_back(self, connection: Any, identity: str, password: str) -> None:
        """Undo of an update at a station under test, which keeps its password beyond the run: SetVariables
        BasicAuthPassword back to ``password``, the one the run started with; once Accepted it is the profile's
        password again (the station reconnects with it, A01)."""
        item = {"attributeValue": password, "component": {"name": PASSWORD[0]}, "variable": {"name": PASSWORD[1]}}
        answer = await connection.call("SetVariables", {"setVariableData": [item]})
        status = answer["setVariableResult"][0]["attributeStatus"]
        if status != "Accepted":
            raise HarnessError(f"the station answered {status!r} to its BasicAuthPassword from before the update: "
                               f"it keeps the new one, and the next run's connections are refused until the "
                               f"station's password is [station] password again")
        self.profile.rotated_password.pop(identity, None)

    async def _rotate_password(self, session: StationSession) -> None:
        password = new_password(session.identity, self.password_length)
        item = {"attributeValue": password, "component": {"name": PASSWORD[0]}, "variable": {"name": PASSWORD[1]}}
        try:
            answer = await session.connection.call("SetVariables", {"setVariableData": [item]})
        except (CallFailed, PeerViolation, HarnessError):
            return
        if answer["setVariableResult"][0]["attributeStatus"] == "Accepted" \
                and session.identity in self.profile.known_identities():
            self.profile.rotated_password[session.identity] = password

    async def act_set_basic_auth_password(self, station: str, password: str) -> None:
        """The operator sets ``station``'s BasicAuthPassword in the CSMS, as when it was provisioned: from now on
        that password opens its connections (a rotation's undoing: A01)."""
        REDACTOR.register(password, identity=station)
        self.profile.rotated_password[station] = password
