"""The QR code of OCPP 2.1 C25: a URL with a time-based one-time password (sans I/O: the time is given).

Spec 001 "QR-code payment": the URL's parameters are chargingstationid, evse, totp and version, with
the optional maxenergy, maxtime and maxcost; the TOTP is an HMAC-SHA256 rendered as base62 text
(0-9, a-z, A-Z); the CSMS accepts the current, the previous and the next interval. The text leaves
the TOTP's input, the interval and the URL open ("not shown"); the harness's choice, which a SUT's
profile states ([qr_code]), follows RFC 6238 with the hash and the alphabet named above:
  counter = floor(unix time / interval), 8 bytes big-endian; mac = HMAC-SHA256(secret, counter);
  dynamic truncation (RFC 4226 section 5.3: 31 bits at the offset of mac's last nibble);
  the code = that number modulo 62^length, written in base62 with ``length`` characters.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from urllib.parse import parse_qs, urlencode, urlsplit

BASE62 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
LIMITS = ("maxenergy", "maxtime", "maxcost")   # optional URL parameters → transactionLimit
TRANSACTION_LIMIT = {"maxenergy": "maxEnergy", "maxtime": "maxTime", "maxcost": "maxCost"}


def base62(number: int, length: int) -> str:
    digits = []
    for _ in range(length):
        number, digit = divmod(number, 62)
        digits.append(BASE62[digit])
    return "".join(reversed(digits))


def totp(secret: bytes, at: float, *, interval: int, length: int, offset: int = 0) -> str:
    """The code for the interval holding ``at`` (unix seconds), ``offset`` intervals away."""
    counter = int(at // interval) + offset
    mac = hmac.new(secret, struct.pack(">Q", counter), hashlib.sha256).digest()
    start = mac[-1] & 0x0F
    number = struct.unpack(">I", mac[start:start + 4])[0] & 0x7FFFFFFF
    return base62(number % 62 ** length, length)


def accepted(code: str, secret: bytes, at: float, *, interval: int, length: int) -> bool:
    """``code`` is the TOTP of the current, the previous or the next interval (constant-time compare)."""
    return any(hmac.compare_digest(code.encode(), totp(secret, at, interval=interval, length=length,
                                                      offset=offset).encode()) for offset in (-1, 0, 1))


def qr_url(base: str, station: str, evse: int, code: str, *, version: str = "1", **limits: float) -> str:
    """The URL a station's QR code holds; ``limits``: maxenergy, maxtime, maxcost."""
    unknown = set(limits) - set(LIMITS)
    if unknown:
        raise ValueError(f"QR URL limits are {', '.join(LIMITS)}, not {', '.join(sorted(unknown))}")
    query = {"chargingstationid": station, "evse": evse, "totp": code, "version": version, **limits}
    return f"{base}?{urlencode(query)}"


def parse_qr_url(url: str) -> dict[str, str]:
    """The parameters of a QR URL (the first value of each)."""
    return {key: values[0] for key, values in parse_qs(urlsplit(url).query).items()}


def transaction_limit(parameters: dict[str, str]) -> dict[str, float]:
    """The transactionLimit the URL's maxenergy, maxtime and maxcost ask for (spec 001 QR rule 4)."""
    limit: dict[str, float] = {}
    for key, field in TRANSACTION_LIMIT.items():
        if key in parameters:
            value = float(parameters[key])
            limit[field] = int(value) if field == "maxTime" else value
    return limit
