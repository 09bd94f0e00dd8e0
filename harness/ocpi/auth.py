"""The Authorization header of OCPI requests, and the credentials token it carries.

Rules (OCPI 2.2.1 §4.1.2 "Authorization header", credentials §7.3.1; 2.3.0 on the encoding;
facts/ocpi-wire.md):
- A1  every request carries ``Authorization: Token <credential>``; a missing header or an
      unknown token is answered HTTP 401;
- A2  from 2.2 on the credential is the token's UTF-8 bytes in base64 (RFC 4648 §4, padded,
      no line break), after the word ``Token`` and exactly one space;
- A3  2.1.1 peers and many 2.2 ones send the raw token instead; a per-peer policy says which
      form to expect ("base64", "raw" or "either": try both, as 2.3.0 suggests), and a raw
      token to a 2.2.1+ peer is reported as a non-strict deviation;
- A4  a token is 1 to 64 characters, each printable non-space ASCII (U+0021..U+007E);
- A5  the ``token`` member of a Credentials object is the token itself, never base64.

The scheme word is compared case-insensitively, as HTTP does for every scheme (RFC 9110 §11.1).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Container
from dataclasses import dataclass
from enum import Enum
from typing import Literal

from harness.errors import HarnessError
from harness.ocpi.envelope import StatusCode, StatusError
from harness.ocpi.versions import version_key

Policy = Literal["base64", "raw", "either"]
MAX_TOKEN_LENGTH = 64
_TOKEN = re.compile(r"[!-~]+")
_HEADER = re.compile(r"(\S+)( +)(\S+)")


class TokenForm(str, Enum):
    BASE64 = "base64"
    RAW = "raw"


@dataclass(frozen=True)
class PresentedToken:
    """The token a request carried, and the form it came in."""
    token: str
    form: TokenForm

    def is_deviation_for(self, version: str) -> bool:
        """A3: a raw token sent to a peer of 2.2.1 or later."""
        return self.form is TokenForm.RAW and version_key(version) >= (2, 2, 1)


def token_problem(token: str) -> str | None:
    """What makes ``token`` break A4, or None when it is a valid credentials token."""
    if not token:
        return "the token is empty"
    if len(token) > MAX_TOKEN_LENGTH:
        return f"the token has {len(token)} characters, more than {MAX_TOKEN_LENGTH}"
    if not _TOKEN.fullmatch(token):
        bad = next(ch for ch in token if not "!" <= ch <= "~")
        return f"the token holds {bad!r}: only printable non-space ASCII is allowed"
    return None


def encode_token(token: str) -> str:
    return base64.b64encode(token.encode("utf-8")).decode("ascii")


def authorization_header(token: str, form: TokenForm = TokenForm.BASE64) -> str:
    """The header value we send; HarnessError when our own token is not a valid one."""
    problem = token_problem(token)
    if problem:
        raise HarnessError(f"cannot send credentials token: {problem}")
    return f"Token {encode_token(token) if form is TokenForm.BASE64 else token}"


def _unauthorized(rule: str, message: str, actual: object) -> StatusError:
    return StatusError(rule, message, status_code=StatusCode.CLIENT_ERROR, http_status=401, actual=actual)


def _from_base64(credential: str) -> str:
    """The token inside a base64 credential; ValueError saying why there is none."""
    try:
        raw = base64.b64decode(credential, validate=True)
    except binascii.Error:
        raise ValueError("not base64 (RFC 4648 §4, with padding)") from None
    if base64.b64encode(raw).decode("ascii") != credential:
        raise ValueError("not canonical base64")
    try:
        token = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("base64 of bytes that are not UTF-8") from None
    problem = token_problem(token)
    if problem:
        raise ValueError(f"decodes to an invalid token: {problem}")
    return token


def decode_authorization(header: str | None, policy: Policy,
                         known: Container[str] | None = None) -> PresentedToken:
    """Read the Authorization header of a request under the peer's ``policy``.

    With policy "either" and ``known`` tokens given, the reading that names a known token
    wins; without ``known``, base64 wins when it decodes to a valid token. Faults raise
    StatusError with HTTP 401.
    """
    if not header:
        raise _unauthorized("A1", "no Authorization header", header)
    match = _HEADER.fullmatch(header)
    if not match or match.group(1).lower() != "token":
        raise _unauthorized("A1", "Authorization is not of the form 'Token <credential>'", header)
    if match.group(2) != " ":
        raise _unauthorized("A2", "more than one space after 'Token'", header)
    credential = match.group(3)
    readings: list[PresentedToken] = []
    problems: list[str] = []
    if policy in ("base64", "either"):
        try:
            readings.append(PresentedToken(_from_base64(credential), TokenForm.BASE64))
        except ValueError as error:
            problems.append(f"as base64: {error}")
    if policy in ("raw", "either"):
        problem = token_problem(credential)
        if problem:
            problems.append(f"as raw token: {problem}")
        else:
            readings.append(PresentedToken(credential, TokenForm.RAW))
    if not readings:
        raise _unauthorized("A2" if policy == "base64" else "A4",
                            f"unusable credential ({'; '.join(problems)})", header)
    if known is not None:
        readings = [reading for reading in readings if reading.token in known] or readings
    return readings[0]
