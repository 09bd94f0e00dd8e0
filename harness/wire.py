"""The wire log: every frame and HTTP message a test exchanged, timestamped, secrets redacted.

Secrets (passwords, PIN codes, OCPI tokens, authorization keys) are registered with the
``Redactor`` as soon as the harness learns them, from the profile or at run time, and
every text that leaves the process (wire logs, failure messages, reports) passes through it.
"""

from __future__ import annotations

import base64
import re
import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone

from harness import clock

MASK = "«redacted»"
SHORT_SECRET = 8   # shorter secrets (PIN codes) are masked only as whole quoted values
_AUTH_HEADER = re.compile(r"(?i)(authorization['\"]?\s*[:=]\s*['\"]?)(basic|token)\s+[^\s'\",}]+")


class Redactor:
    """Replaces every registered secret, and the encodings it travels in, by a mask."""

    def __init__(self) -> None:
        self._secrets: set[str] = set()
        self._lock = threading.Lock()
        self._masks: tuple[list[str], re.Pattern | None] = ([], None)   # made from _secrets once per change

    def register(self, secret: str | bytes | None, *, identity: str | None = None) -> None:
        if not secret:
            return
        raw = secret if isinstance(secret, bytes) else secret.encode()
        forms = {base64.b64encode(raw).decode()}
        if isinstance(secret, str):
            forms.add(secret)
        else:
            forms.add(secret.hex())
        if identity is not None:
            forms.add(base64.b64encode(identity.encode() + b":" + raw).decode())
        with self._lock:
            if not forms <= self._secrets:
                self._secrets |= {f for f in forms if f}
                self._masks = self._compile()

    def _compile(self) -> tuple[list[str], re.Pattern | None]:
        """Long secrets, longest first (one inside another is masked whole); PINs as one pattern that
        matches them only as a whole quoted value, so ids and numbers that contain one survive."""
        secrets = sorted(self._secrets, key=len, reverse=True)
        pins = [re.escape(s) for s in secrets if len(s) < SHORT_SECRET]
        return ([s for s in secrets if len(s) >= SHORT_SECRET],
                re.compile(r"(?<=[\"'])(?:" + "|".join(pins) + r")(?=[\"'])") if pins else None)

    def redact(self, text: str) -> str:
        text = _AUTH_HEADER.sub(lambda m: m.group(1) + m.group(2) + " " + MASK, text)
        secrets, pins = self._masks
        for secret in secrets:
            text = text.replace(secret, MASK)
        return pins.sub(MASK, text) if pins is not None else text

    def clear(self) -> None:
        with self._lock:
            self._secrets.clear()
            self._masks = ([], None)


REDACTOR = Redactor()


@dataclass(frozen=True)
class WireEntry:
    at: float            # wall-clock seconds since the epoch (clock.wall())
    direction: str       # "→" harness to SUT, "←" SUT to harness, "·" connection event
    channel: str         # connection name: station identity, OCPI peer, ...
    text: str

    def render(self, *, redact: bool = True) -> str:
        stamp = datetime.fromtimestamp(self.at, timezone.utc).strftime("%H:%M:%S.%f")[:-3]
        return f"{stamp} {self.channel} {self.direction} {REDACTOR.redact(self.text) if redact else self.text}"


@dataclass
class WireLog:
    """What one test exchanged, in order. Shared by every connection the test opens."""
    entries: list[WireEntry] = field(default_factory=list)
    connections: list = field(default_factory=list)   # every connection that logs here

    def sent(self, channel: str, text: str) -> None:
        self.entries.append(WireEntry(clock.wall(), "→", channel, text))

    def received(self, channel: str, text: str) -> None:
        self.entries.append(WireEntry(clock.wall(), "←", channel, text))

    def event(self, channel: str, text: str) -> None:
        self.entries.append(WireEntry(clock.wall(), "·", channel, text))

    def render(self, last: int | None = None) -> str:
        entries = self.entries if last is None else self.entries[-last:]
        return REDACTOR.redact("\n".join(e.render(redact=False) for e in entries))   # once: every secret is a scan
