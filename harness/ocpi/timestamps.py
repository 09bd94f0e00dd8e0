"""OCPI DateTime values: read the forms peers send, write the one form we send.

Readings (OCPI 2.2.1 types, "DateTime"; shared/facts/ocpi-wire.md):
- a DateTime is RFC 3339 text in UTC; a missing zone designator means UTC, and an offset other
  than zero breaks the "always UTC" rule;
- fractional seconds may be present and must be accepted;
- we write whole seconds with the ``Z`` suffix, the advised form.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

from harness.errors import HarnessError

_DATETIME = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]00:00)?")


def parse_datetime(text: str) -> datetime:
    """An aware UTC datetime; ValueError naming the problem when ``text`` is no OCPI DateTime."""
    match = _DATETIME.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        raise ValueError(f"{text!r} is not an RFC 3339 date-time in UTC")
    year, month, day, hour, minute, second = (int(part) for part in match.groups()[:6])
    micro = int((match.group(7) or "0")[:6].ljust(6, "0"))
    return datetime(year, month, day, hour, minute, second, micro, tzinfo=timezone.utc)


def format_datetime(moment: datetime) -> str:
    """``2024-05-01T12:00:00Z``: what the harness puts on the wire."""
    if moment.tzinfo is None:
        raise HarnessError("naive datetime: give it a timezone before it goes on the wire")
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")

