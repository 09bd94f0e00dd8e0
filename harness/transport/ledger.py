"""What a connection or a server has seen, numbered for ever, of which only the newest are kept.

A test marks a point (``mark = len(ledger)``) and later reads what came after it (``ledger[mark:]``,
``ledger.index(item)``, a wait from ``start=mark``): positions are a monotonic count, never a list
index, so a mark stays valid while the oldest entries go. Memory stays bounded however long a
connection or a server lives (a soak, a load run): past ``keep`` entries the oldest is dropped, and
an owner may ``forget`` one sooner (a server its closed connections).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Generic, TypeVar, overload

from harness.errors import PeerViolation

T = TypeVar("T")


class Ledger(Generic[T]):
    """Entries in arrival order, numbered from 0; ``len()`` is how many ever came (the next one's number)."""

    def __init__(self, keep: int | None = None):
        if keep is not None and keep < 1:
            raise ValueError(f"a ledger keeps at least one entry, not {keep}")
        self.keep = keep
        self._entries: dict[int, T] = {}   # position -> entry, oldest first
        self._count = 0
        self.dropped = 0                   # entries the cap let go (not those an owner forgot)

    def append(self, entry: T) -> int:
        """Add ``entry``; its position. The oldest entry goes once more than ``keep`` are held."""
        position = self._count
        self._entries[position] = entry
        self._count += 1
        if self.keep is not None and len(self._entries) > self.keep:
            del self._entries[next(iter(self._entries))]
            self.dropped += 1
        return position

    def forget(self, position: int) -> None:
        """Drop the entry at ``position`` now (nothing happens when it is already gone)."""
        self._entries.pop(position, None)

    def remove(self, entry: T) -> None:
        """Forget ``entry`` (ValueError when it is not kept)."""
        self.forget(self.index(entry))

    def clear(self) -> None:
        """Forget every entry kept; positions go on counting."""
        self._entries.clear()

    @property
    def kept(self) -> int:
        return len(self._entries)

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[T]:
        return iter(list(self._entries.values()))   # a snapshot: entries may come while a caller iterates

    def __reversed__(self) -> Iterator[T]:
        return reversed(list(self._entries.values()))

    @overload
    def __getitem__(self, key: int) -> T: ...
    @overload
    def __getitem__(self, key: slice) -> list[T]: ...

    def __getitem__(self, key):
        """The entry at a position (negative: counted back from the next one's), or the kept entries whose
        positions a slice covers."""
        if isinstance(key, slice):
            positions = range(self._count)[key]
            return [entry for position, entry in self._entries.items() if position in positions]
        position = key + self._count if key < 0 else key
        try:
            return self._entries[position]
        except KeyError:
            if not 0 <= position < self._count:
                raise IndexError(f"no entry {key}: {self._count} so far") from None
            raise IndexError(f"entry {key} is no longer kept: only the newest {self.keep} of {self._count} are; "
                             f"read it before {self.keep} newer ones come") from None

    def index(self, entry: T) -> int:
        for position, kept in self._entries.items():
            if kept is entry or kept == entry:
                return position
        raise ValueError(f"{entry!r} is not among the {self.kept} entries kept")

    def __repr__(self) -> str:
        return f"Ledger({self.kept} kept of {self._count}, keep={self.keep})"


class Violations(Ledger[PeerViolation]):
    """A peer's violations, each kept as a record of bounded size (``PeerViolation.kept``): a flood of
    the largest frames the size limit lets through holds no more than a flood of small ones."""

    def append(self, entry: PeerViolation) -> int:
        return super().append(entry.kept())
