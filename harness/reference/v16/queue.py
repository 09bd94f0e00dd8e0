"""The 1.6 charge point's queue of transaction-related messages: order, offline, retries.

Rules (spec 002 behaviour rules 1, 2 and 5; Limits "retry wait"):
- Q1  StartTransaction, StopTransaction and the MeterValues of a transaction are transaction-related:
      they leave in the order they were queued (chronological), one at a time; a newer one waits
      until every older one is delivered or discarded (rule 1);
- Q2  while offline they wait in the queue (rule 1, rule 5): being offline is no failed attempt;
- Q3  a transmission the central system fails to process (a CALLERROR, no answer) is retried after
      TransactionMessageRetryInterval × the number of transmissions so far (rule 2);
- Q4  after TransactionMessageAttempts failed transmissions the message is discarded and the next
      one goes (rule 2).

Sans-I/O: the time is passed in; the caller transmits and reports the outcome.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

@dataclass
class Queued:
    action: str
    payload: dict[str, Any]
    owner: Any = None          # what the caller ties to the message (its transaction, a future)
    transmissions: int = 0     # failed transmissions so far
    not_before: float = 0.0    # monotonic time before which it must not be retried (Q3)


class TransactionQueue:
    __slots__ = ("_items", "discarded")   # one a charge point, thousands in a load

    def __init__(self) -> None:
        self._items: list[Queued] = []   # a few messages at most (an empty deque is ten times an empty list)
        self.discarded: list[Queued] = []

    def push(self, action: str, payload: dict[str, Any], owner: Any = None) -> Queued:
        item = Queued(action, payload, owner)
        self._items.append(item)
        return item

    def head(self) -> Queued | None:
        """The one message that may go next (Q1)."""
        return self._items[0] if self._items else None

    def __len__(self) -> int:
        return len(self._items)

    def wait(self, now: float) -> float | None:
        """Seconds until the head may be transmitted (0: now); None when the queue is empty."""
        head = self.head()
        return None if head is None else max(0.0, head.not_before - now)

    def delivered(self) -> Queued:
        """The head was processed: the next one may go (Q1)."""
        return self._items.pop(0)

    def failed(self, now: float, *, attempts: int, retry_interval: float) -> bool:
        """The head's transmission failed: schedule its retry (Q3) or discard it (Q4); True when discarded."""
        head = self._items[0]
        head.transmissions += 1
        if head.transmissions >= max(1, attempts):
            self.discarded.append(self._items.pop(0))
            return True
        head.not_before = now + retry_interval * head.transmissions
        return False
