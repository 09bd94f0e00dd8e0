"""The HTTP Link header (RFC 8288 §3), read strictly by its grammar.

    Link       = #link-value
    link-value = "<" URI-Reference ">" *( OWS ";" OWS link-param )
    link-param = token BWS [ "=" BWS ( token / quoted-string ) ]

``#`` is the list rule of RFC 9110 §5.6.1: a recipient accepts empty list elements, so an empty
field value is an empty list of links (legal; what it means on a paginated answer is the
caller's to judge). Tokens, quoted strings and whitespace are those of RFC 9110 §5.6.2-5.6.4;
the target is checked against the characters RFC 3986 allows in a URI-Reference. Relation types
compare ignoring case (RFC 8288 §2.1.1), and only the first ``rel`` of a link counts (§3.3).

Written here because no maintained parser fits: httpx exposes none publicly, the stdlib has
none, and the small PyPI parsers are either unmaintained or lenient (they skip what they cannot
read, where a conformance check must say what is malformed and where).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_OWS = re.compile(r"[ \t]*")
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_QUOTED = re.compile(r'"((?:[\t \x21\x23-\x5b\x5d-\x7e\x80-\xff]|\\[\t \x21-\x7e\x80-\xff])*)"')
_TARGET = re.compile(r"<([^<>]*)>")
_URI_CHARS = re.compile(r"(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*")
_QUOTED_PAIR = re.compile(r"\\(.)")


@dataclass(frozen=True)
class WebLink:
    """One link-value: its target as written and its parameters in order (names lower-cased,
    None for a parameter without a value)."""
    target: str
    params: tuple[tuple[str, str | None], ...]

    @property
    def rels(self) -> tuple[str, ...]:
        """The relation types of the first ``rel`` parameter, lower-cased."""
        value = next((value for name, value in self.params if name == "rel"), None)
        return tuple(value.lower().split()) if value else ()


class _Reader:
    """A cursor over the field value; ``fail`` says what was expected and where."""

    def __init__(self, text: str):
        self.text, self.at = text, 0

    def skip(self) -> None:
        """Past optional whitespace (OWS, BWS)."""
        blank = _OWS.match(self.text, self.at)
        assert blank is not None   # [ \t]* matches anywhere, if only the empty string
        self.at = blank.end()

    def take(self, pattern: re.Pattern[str]) -> re.Match[str] | None:
        found = pattern.match(self.text, self.at)
        if found:
            self.at = found.end()
        return found

    def peek(self, char: str) -> bool:
        return self.text.startswith(char, self.at)

    @property
    def done(self) -> bool:
        return self.at >= len(self.text)

    def fail(self, expected: str) -> ValueError:
        return ValueError(f"expected {expected} at character {self.at + 1}: {self.text[self.at:self.at + 20]!r}")


def _param(reader: _Reader) -> tuple[str, str | None]:
    name = reader.take(_TOKEN)
    if not name:
        raise reader.fail("a parameter name (token)")
    reader.skip()
    if not reader.peek("="):
        return name.group().lower(), None
    reader.at += 1
    reader.skip()
    if quoted := reader.take(_QUOTED):
        return name.group().lower(), _QUOTED_PAIR.sub(r"\1", quoted.group(1))
    if token := reader.take(_TOKEN):
        return name.group().lower(), token.group()
    raise reader.fail(f"a token or a quoted string as the value of {name.group()!r}")


def _link(reader: _Reader) -> WebLink:
    target = reader.take(_TARGET)
    if not target:
        raise reader.fail("'<' URI-Reference '>'")
    if not _URI_CHARS.fullmatch(target.group(1)):
        raise ValueError(f"the target {target.group(1)!r} is not a URI-Reference (RFC 3986)")
    params: list[tuple[str, str | None]] = []
    while True:
        mark = reader.at
        reader.skip()
        if not reader.peek(";"):
            reader.at = mark
            return WebLink(target.group(1), tuple(params))
        reader.at += 1
        reader.skip()
        params.append(_param(reader))


def parse_links(value: str) -> list[WebLink]:
    """The links of one Link field value (several field lines joined with ", "); ValueError
    naming the first place where the value leaves the grammar."""
    reader, links = _Reader(value), list[WebLink]()
    while True:
        reader.skip()
        if reader.done:
            return links
        if reader.peek(","):          # an empty list element
            reader.at += 1
            continue
        links.append(_link(reader))
        reader.skip()
        if reader.done:
            return links
        if not reader.peek(","):
            raise reader.fail("',' or the end of the field")
        reader.at += 1
