"""The Authorization header of OCPI requests, and the credentials token it carries.

2.1.1 peers and many 2.2 ones send the raw token instead of its base64 form; a per-peer policy
says which form to expect ("base64", "raw" or "either": try both, as 2.3.0 suggests), and a raw
token to a 2.2.1+ peer is reported as a deviation (``AuthRules.raw_token``). The ``token`` member
of a Credentials object is the token itself, never base64. The scheme word is compared
case-insensitively, as HTTP does for every scheme (RFC 9110 §11.1).
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
from harness.rules import Rule, RuleTable, must, should

_HEADER_REF = "OCPI 2.2.1 §4.1.2 Authorization header; spec 000 Authentication; facts/ocpi-wire.md"


class AuthRules(RuleTable, namespace="ocpi.auth"):
    """The credentials token on every request."""
    header = must(_HEADER_REF, "every request carries an Authorization header of the scheme Token; a missing "
                               "header or an unknown token is answered HTTP 401 (not 403, not 200 with an error code)")
    base64 = must(f"{_HEADER_REF}; 2.3.0 on the encoding", "from 2.2 on the credential is the token's UTF-8 bytes "
                  "in padded base64 (RFC 4648 §4), after 'Token' and exactly one space")
    raw_token = should(_HEADER_REF, "a platform of 2.2.1 or later is sent base64 tokens, not raw ones")
    token_chars = must("spec 000 Authentication 5; Credentials.token", "a token is 1 to 64 printable non-space "
                                                                     "ASCII characters (U+0021..U+007E)")

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
        """A raw token sent to a peer of 2.2.1 or later."""
        return self.form is TokenForm.RAW and version_key(version) >= (2, 2, 1)


def token_problem(token: str) -> str | None:
    """What makes ``token`` break ``AuthRules.token_chars``, or None when it is a valid credentials token."""
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


def _unauthorized(rule: Rule, message: str, actual: object) -> StatusError:
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
        raise _unauthorized(AuthRules.header, "no Authorization header", header)
    match = _HEADER.fullmatch(header)
    if not match or match.group(1).lower() != "token":
        raise _unauthorized(AuthRules.header, "Authorization is not of the form 'Token <credential>'", header)
    if match.group(2) != " ":
        raise _unauthorized(AuthRules.base64, "more than one space after 'Token'", header)
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
        raise _unauthorized(AuthRules.base64 if policy == "base64" else AuthRules.token_chars,
                            f"unusable credential ({'; '.join(problems)})", header)
    if known is not None:
        readings = [reading for reading in readings if reading.token in known] or readings
    return readings[0]
