"""Searches a run's outputs for secrets: every value the profile loader masks (passwords, PIN codes,
keys, tokens) and the private keys of the run's TLS, in every encoding it can travel in, and the
credentials the run makes up as it goes (rotated 1.6 keys, 2.x BasicAuthPasswords, OCPI tokens), found by where
they stand: an Authorization header, an AuthorizationKey value or a BasicAuthPassword attributeValue that is not
masked. A hit names the file, the profile key and the encoding,
never the value."""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.profile import Profile
from harness.wire import MASK, SHORT_SECRET

_HEX = re.compile(r"(?:[0-9a-fA-F]{2}){8,}")
_ITEM = r"(?:(?!attributeValue|\}\s*,\s*\{)[\s\S]){0,400}?"   # within one setVariableData item
# runtime credentials: a Basic/Token Authorization header, a ChangeConfiguration AuthorizationKey value,
# in plain text or in a JSON string (quotes escaped), that the redactor did not mask
_UNMASKED = {
    "Authorization header": re.compile(r"(?i)authorization\\?['\"]?\s*[:=]\s*\\?['\"]?(?:basic|token)\s+(?!" + MASK
                                       + r")[A-Za-z0-9+/=_-]{6,}"),
    "AuthorizationKey value": re.compile(r"AuthorizationKey\\?\"\s*,\s*\\?\"value\\?\"\s*:\s*\\?\"(?!" + MASK + ")"),
    # a 2.x SetVariables of SecurityCtrlr.BasicAuthPassword: the attributeValue of its item, before or after the name
    "BasicAuthPassword value": re.compile(
        r"attributeValue\\?\"\s*:\s*\\?\"(?!" + MASK + r")[^\"\\]+\\?\"" + _ITEM + "BasicAuthPassword|BasicAuthPassword"
        + _ITEM + r"attributeValue\\?\"\s*:\s*\\?\"(?!" + MASK + ")"),
}


@dataclass(frozen=True)
class Secret:
    key: str                # where the profile keeps it, e.g. "station.password"
    value: bytes
    identity: str | None    # the Basic-auth user name it may be sent with

    def forms(self) -> dict[str, bytes]:
        """Encoding name → the bytes the secret shows as in that encoding."""
        forms = _encodings(self.value)
        if self.identity is not None:
            basic = self.identity.encode() + b":" + self.value
            forms["Basic-auth header"] = base64.b64encode(basic)
            forms["Basic-auth header unpadded"] = base64.b64encode(basic).rstrip(b"=")
        return forms


def _encodings(value: bytes) -> dict[str, bytes]:
    standard, urlsafe = base64.b64encode(value), base64.urlsafe_b64encode(value)
    return {"raw": value, "hex": value.hex().encode(), "HEX": value.hex().upper().encode(),
            "base64": standard, "base64 unpadded": standard.rstrip(b"="),
            "urlsafe base64": urlsafe, "urlsafe base64 unpadded": urlsafe.rstrip(b"=")}


def secrets_of(profile: Profile) -> list[Secret]:
    """Every value the loader masks in the profile's redacted form (the loader decides what is secret);
    a value written in hex (a 1.6 AuthorizationKey) also as the bytes it spells."""
    found: list[Secret] = []

    def walk(data: Any, masked: Any, key: str) -> None:
        if isinstance(data, dict):
            for name, value in data.items():
                walk(value, masked[name], f"{key}.{name}" if key else name)
        elif isinstance(data, list):
            for index, (value, mask) in enumerate(zip(data, masked)):
                walk(value, mask, f"{key}[{index}]")
        elif masked == MASK and data != MASK:
            text = str(data)
            found.append(Secret(key, text.encode(), profile.identity))
            if _HEX.fullmatch(text):
                found.append(Secret(f"{key} (as bytes)", bytes.fromhex(text), profile.identity))

    walk(profile.data, profile.redacted(), "")
    return found


def key_material(directory: Path) -> list[Secret]:
    """The private keys a run's TLS used (the ``*.key`` files of its PKI directory, ``[tls] harness_pki``):
    each as its key bytes (DER) in every encoding, as its PEM text, and as a line of its PEM body (a PEM
    copied into a log keeps its line breaks; the middle line is the key's own, not the format's prefix)."""
    found = []
    for path in sorted(directory.glob("*.key")):
        pem = path.read_bytes()
        body = [line for line in pem.splitlines() if line and not line.startswith(b"-----")]
        found.append(Secret(f"private key {path.name}", base64.b64decode(b"".join(body)), None))
        found.append(Secret(f"private key {path.name} (PEM)", pem, None))
        found.append(Secret(f"private key {path.name} (a PEM line)", body[len(body) // 2], None))
    return found


def _pattern(form: bytes, raw_length: int) -> re.Pattern[bytes]:
    """A short secret (a PIN) is a leak only as a whole quoted value, as the redactor masks it: four
    digits also occur in times, ports and ids."""
    if raw_length < SHORT_SECRET:
        return re.compile(rb"(?<=[\"'])" + re.escape(form) + rb"(?=\\?[\"'])")
    return re.compile(re.escape(form))


def leaks(outputs: dict[str, bytes], secrets: list[Secret]) -> list[str]:
    """``<output>: <profile key> as <encoding>`` for each secret found, and each unmasked credential."""
    patterns = [(secret.key, encoding, _pattern(form, len(secret.value)))
                for secret in secrets for encoding, form in secret.forms().items()]
    hits = []
    for name, content in outputs.items():
        hits += [f"{name}: {key} as {encoding}" for key, encoding, pattern in patterns if pattern.search(content)]
        text = content.decode("utf-8", errors="replace")
        hits += [f"{name}: an unmasked {what}" for what, pattern in _UNMASKED.items() if pattern.search(text)]
    return hits


def outputs_of(terminal: str, *places: Path) -> dict[str, bytes]:
    """The terminal and every file under the given files and folders, by name."""
    found = {"terminal": terminal.encode()}
    for place in places:
        for path in ([place] if place.is_file() else sorted(p for p in place.rglob("*") if p.is_file())):
            found[str(path)] = path.read_bytes()
    return found
