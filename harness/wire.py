"""The wire log: every frame and HTTP message a test exchanged, timestamped, secrets redacted.

Secrets (passwords, PIN codes, OCPI tokens, authorization keys) are registered with the
``Redactor`` as soon as the harness learns them, from the profile or at run time, and
every text that leaves the process (wire logs, failure messages, reports) passes through it.
"""

from __future__ import annotations

import base64
import dataclasses
import logging
import re
import threading
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, ClassVar, Protocol, TypeGuard

from harness import clock
from harness.errors import clip

MASK = "«redacted»"
SHORT_SECRET = 8   # shorter secrets (PIN codes) are masked only as whole quoted values
PASSING_KEPT = 1_000   # values peers named in passing that stay masked, the newest (see Redactor.register)
HEAD = 8           # characters of a long secret looked for first (see _Masks)
LOOKUP_PAYS = 1_000   # secrets from which looking them up beats replacing each, whatever the text's length
WINDOW = 65_536    # text characters cut into pieces at a time
_AUTH_HEADER = re.compile(r"(?i)(authorization['\"]?\s*[:=]\s*['\"]?)(basic|token)\s+[^\s'\",}]+")
# a 1.6 AuthorizationKey value, masked by where it stands: a key a real central system sends is logged
# (websockets, at DEBUG) before the harness has read it and registered it
_KEY_VALUE = re.compile(r'("key"\s*:\s*"AuthorizationKey"\s*,\s*"value"\s*:\s*")[^"]*')
# a 2.x BasicAuthPassword set by SetVariables, masked by where it stands for the same reason: the attributeValue
# of the setVariableData item that names the variable, its members in either order (the item ends at "},{")
_ITEM_GAP = r'(?:(?!attributeValue|\}\s*,\s*\{)[\s\S]){0,400}?'
_PASSWORD_VALUE = (re.compile(r'(attributeValue\\?"\s*:\s*\\?")((?:[^"\\]|\\[^"])*)(?=\\?"' + _ITEM_GAP
                              + r'BasicAuthPassword)'),
                   re.compile(r'(BasicAuthPassword' + _ITEM_GAP + r'attributeValue\\?"\s*:\s*\\?")((?:[^"\\]|\\[^"])*)'))


class _Masks:
    """The registered secrets in the order they are masked (longest first), and where to look for them.

    Replacing every secret in turn costs a scan of the text per secret, and a run registers thousands
    (each test's passwords and tokens in seven encodings). So a text is first cut into its
    ``HEAD``-character pieces, and only the secrets whose first ``HEAD`` characters are among them are
    replaced, in the same order: the text that comes out is the same. A secret that a mask put in
    place could complete (one holding a character of ``MASK``, or inside it), and one shorter than
    ``HEAD``, is always replaced."""

    def __init__(self, secrets: list[str], pins: re.Pattern[str] | None) -> None:
        self.secrets = secrets
        self.pins = pins
        self._always = [n for n, secret in enumerate(secrets)
                        if len(secret) < HEAD or secret in MASK or MASK[0] in secret or MASK[-1] in secret]
        self._by_head: dict[str, list[int]] = {}
        for n, secret in enumerate(secrets):
            if len(secret) >= HEAD:
                self._by_head.setdefault(secret[:HEAD], []).append(n)
        self._heads = frozenset(self._by_head)

    def in_text(self, text: str) -> list[str]:
        """The secrets to replace in ``text``, in order: at least every one it holds. Cutting a text costs
        about as much as 1,000 scans of it, or as 2 replacements per character of a short one
        (bench/PROJECT_TESTS.md): below that every secret is replaced."""
        if len(self.secrets) < min(2 * len(text), LOOKUP_PAYS):
            return self.secrets
        last = len(text) - HEAD + 1
        heads: set[str] = set()
        for start in range(0, last, WINDOW):   # a window at a time: a long report stays a few MB of pieces
            heads |= self._heads & {text[i:i + HEAD] for i in range(start, min(start + WINDOW, last))}
        found = self._always + [n for head in heads for n in self._by_head[head]]
        return [self.secrets[n] for n in sorted(found)]


class Redactor:
    """Replaces every registered secret, and the encodings it travels in, by a mask."""

    def __init__(self) -> None:
        self._secrets: set[str] = set()   # forms of secrets masked wherever they stand
        self._pins: set[str] = set()      # forms of short secrets (PIN codes): masked as whole quoted values
        self._passing: dict[str, set[str]] = {}   # values a peer named in passing -> their forms, newest last
        self._lock = threading.Lock()
        self._masks: _Masks | None = _Masks([], None)   # None: made again when next used
        # the last text redacted, with the masks it was redacted by and the result: each of pytest's log
        # handlers (live, file, captured) formats a record, and passes the same text here in turn
        self._last: tuple[_Masks, str, str] | None = None

    def register(self, secret: str | bytes | None, *, identity: str | None = None, passing: bool = False) -> None:
        """The secret raw, in hex (either case), in base64 (standard or urlsafe, padded or not), and
        with ``identity`` as the Basic-auth credential ``base64(identity:secret)``.

        ``passing``: a value a peer named in a request that may never come to anything (the token of a
        refused credentials request): only the newest ``PASSING_KEPT`` such values are masked, so a peer
        that names a new one with every request cannot grow the redactor, nor the time it takes, for ever."""
        if not secret:
            return
        raw = secret if isinstance(secret, bytes) else secret.encode()
        encoded = [base64.b64encode(raw), base64.urlsafe_b64encode(raw)]
        if identity is not None:
            encoded.append(base64.b64encode(identity.encode() + b":" + raw))
        forms = {raw.hex(), raw.hex().upper()} | {f.decode() for e in encoded for f in (e, e.rstrip(b"="))}
        if isinstance(secret, str):
            forms.add(secret)
        with self._lock:
            if passing:
                key = raw.hex()
                if key not in self._passing:
                    self._passing[key] = forms
                    if len(self._passing) > PASSING_KEPT:
                        del self._passing[next(iter(self._passing))]
                    self._masks = None
                return
            known = self._pins if len(raw) < SHORT_SECRET else self._secrets
            if not forms <= known:
                known |= forms
                self._masks = None

    def _compile(self) -> _Masks:
        """Long secrets, longest first (one inside another is masked whole); PINs as one pattern that
        matches them only as a whole quoted value, so ids and numbers that contain one survive."""
        passing = {form for forms in self._passing.values() for form in forms}
        pins = [re.escape(s) for s in sorted(self._pins | {f for f in passing if len(f) < SHORT_SECRET},
                                             key=len, reverse=True)]
        return _Masks(sorted(self._secrets | {f for f in passing if len(f) >= SHORT_SECRET}, key=len, reverse=True),
                      re.compile(r"(?<=[\"'])(?:" + "|".join(pins) + r")(?=[\"'])") if pins else None)

    def _current(self) -> _Masks:
        """The masks, made once per change of the secrets, when first needed after it."""
        masks = self._masks
        if masks is None:
            with self._lock:
                if self._masks is None:
                    self._masks = self._compile()
                masks = self._masks
        return masks

    def redact(self, text: str) -> str:
        if not text:
            return text
        masks, last = self._current(), self._last
        if last is not None and last[0] is masks and last[1] == text:
            return last[2]
        redacted = _AUTH_HEADER.sub(lambda m: m.group(1) + m.group(2) + " " + MASK, text)
        redacted = _KEY_VALUE.sub(lambda m: m.group(1) + MASK, redacted)
        for pattern in _PASSWORD_VALUE:
            redacted = pattern.sub(lambda m: m.group(1) + MASK, redacted)
        for secret in masks.in_text(redacted):
            redacted = redacted.replace(secret, MASK)
        if masks.pins is not None:
            redacted = masks.pins.sub(MASK, redacted)
        self._last = (masks, text, redacted)
        return redacted

    def clear(self) -> None:
        with self._lock:
            self._secrets.clear()
            self._pins.clear()
            self._passing.clear()
            self._masks = _Masks([], None)
            self._last = None


REDACTOR = Redactor()


class RedactingFormatter(logging.Formatter):
    """A log handler's formatter whose every text (message, arguments, traceback) passes the redactor:
    libraries log what they send (websockets logs each handshake header, Basic auth included)."""

    def __init__(self, inner: logging.Formatter | None) -> None:
        super().__init__()
        self.inner = inner or logging.Formatter()

    def format(self, record: logging.LogRecord) -> str:
        if isinstance(record.args, tuple) and any(map(_elided, record.args)):
            record = _redacted_copy(record)
        return REDACTOR.redact(self.inner.format(record))


class _Frame(Protocol):
    """A websockets frame, as ``_elided`` recognises one: a dataclass with a bytes payload."""

    __dataclass_fields__: ClassVar[dict[str, Any]]
    data: bytes | bytearray


def _elided(argument: object) -> TypeGuard[_Frame]:
    """A websockets frame shows only the start and the end of its payload: a secret cut in two there
    is no longer one the redactor recognises, so the payload is redacted whole first."""
    return dataclasses.is_dataclass(argument) and isinstance(getattr(argument, "data", None), (bytes, bytearray))


def _redacted_copy(record: logging.LogRecord) -> logging.LogRecord:
    """The record with its frames redacted whole, made once for all the handlers that format it (kept on
    it, with the masks it was made by: a secret registered since makes it again)."""
    masks = REDACTOR._current()
    made = record.__dict__.get("_evse_redacted")
    if made is None or made[0] is not masks:
        args = tuple(map(_redacted_whole, record.args)) if isinstance(record.args, tuple) else record.args
        made = (masks, logging.makeLogRecord(record.__dict__ | {"args": args, "_evse_redacted": None}))
        record._evse_redacted = made
    return made[1]


def _redacted_whole(argument: object) -> object:
    if not _elided(argument):
        return argument
    try:
        text = bytes(argument.data).decode()
    except UnicodeDecodeError:   # binary: nothing the redactor knows is in it as text
        return argument
    return dataclasses.replace(argument, data=REDACTOR.redact(text).encode())


def redact_handler(handler: logging.Handler) -> None:
    """Makes every record the handler writes pass the redactor (once, however often it is called)."""
    if not isinstance(handler.formatter, RedactingFormatter):
        handler.setFormatter(RedactingFormatter(handler.formatter))


LINE_BREAKS = str.maketrans({"\n": "\\n", "\r": "\\r"})   # a wire log entry stays on its line


@dataclass(frozen=True)
class WireEntry:
    at: float            # wall-clock seconds since the epoch (clock.wall())
    direction: str       # "→" harness to SUT, "←" SUT to harness, "·" connection event
    channel: str         # connection name: station identity, OCPI peer, ...
    text: str

    def render(self, *, redact: bool = True, width: int | None = None) -> str:
        """One line, whatever line breaks the text holds (a peer may send its JSON pretty-printed: they show as
        ``\\n``); ``width`` cuts the text to that many characters, saying how long it was."""
        stamp = datetime.fromtimestamp(self.at, timezone.utc).strftime("%H:%M:%S.%f")[:-3]
        if width is None:
            text = REDACTOR.redact(self.text) if redact else self.text
        else:   # redacted before it is cut: a secret cut in two would slip past the redactor
            text = clip(REDACTOR.redact(self.text), width)
        return f"{stamp} {self.channel} {self.direction} {text.translate(LINE_BREAKS)}"


@dataclass
class WireLog:
    """What one test exchanged, in order. Shared by every connection the test opens.

    Bounded: it keeps the newest ``max_entries`` entries and ``max_chars`` characters of text (far
    more than a test exchanges), and a rendered log that lost older entries says so on its first line.
    """
    max_entries: int = 10_000
    max_chars: int = 10_000_000
    entries: deque[WireEntry] = field(default_factory=deque)
    connections: list[Any] = field(default_factory=list[Any])   # every connection that logs here
    dropped: int = field(default=0, init=False)          # entries dropped from the front to stay within the bounds
    dropped_chars: int = field(default=0, init=False)
    _chars: int = field(default=0, init=False, repr=False)

    def sent(self, channel: str, text: str) -> None:
        self._add(WireEntry(clock.wall(), "→", channel, text))

    def received(self, channel: str, text: str) -> None:
        self._add(WireEntry(clock.wall(), "←", channel, text))

    def event(self, channel: str, text: str) -> None:
        self._add(WireEntry(clock.wall(), "·", channel, text))

    def _add(self, entry: WireEntry) -> None:
        self.entries.append(entry)
        self._chars += len(entry.text)
        while len(self.entries) > 1 and (len(self.entries) > self.max_entries or self._chars > self.max_chars):
            oldest = self.entries.popleft()
            self._chars -= len(oldest.text)
            self.dropped += 1
            self.dropped_chars += len(oldest.text)

    def render(self, last: int | None = None, width: int | None = None) -> str:
        """The log (its ``last`` entries), each cut to ``width`` characters when given."""
        entries = list(self.entries) if last is None else list(self.entries)[-last:]
        lines = [e.render(redact=False, width=width) for e in entries]
        if self.dropped and last is None:
            lines.insert(0, f"… {self.dropped} earlier entries ({self.dropped_chars} characters) not kept: the wire "
                            f"log keeps the newest {self.max_entries} entries and {self.max_chars} characters")
        return REDACTOR.redact("\n".join(lines))   # once per log: every secret is a scan of the text
