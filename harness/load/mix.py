"""What each simulated station does, and when: the mix of activities and their rates, planned per station.

Sans-I/O: a ``Plan`` is fed the time and seeded draws (``Draws``, or a ``random.Random``) and says what comes next; it never
sleeps. The runner (``harness.load.station``) sleeps until a step is due and has the reference station
perform it, so the schedule is tested on made-up times (tests/load).

- Heartbeat: periodic, every ``heartbeat`` seconds (None: the interval the CSMS gave at boot), each
  station at its own random phase so that N stations do not beat in step. A station that fell behind
  (a slow CSMS) beats once and starts its period again: missed beats are not sent in a burst.
- Authorize: a driver presents the station's card without charging; Poisson arrivals at
  ``authorize_per_hour`` per station.
- Transaction: plug in and present the card (Authorize, StatusNotification, TransactionEvent Started /
  StartTransaction), meter values every ``meter_interval`` seconds while charging (sent by the reference
  station itself), unplug after ``transaction_seconds`` (the transaction ends); Poisson arrivals at
  ``transactions_per_hour`` per station, one session at a time.
"""

from __future__ import annotations

import hashlib
import heapq
import math
import random
from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol


class Activity(str, Enum):
    HEARTBEAT = "heartbeat"
    AUTHORIZE = "authorize"
    START = "start transaction"
    STOP = "stop transaction"


@dataclass(frozen=True)
class Mix:
    heartbeat: float | None = None      # seconds between Heartbeats; None: the CSMS's boot interval
    authorize_per_hour: float = 0.0     # Authorize without a transaction, per station
    transactions_per_hour: float = 0.0  # charging sessions per station
    transaction_seconds: float = 600.0  # how long a session lasts, plug-in to unplug
    meter_interval: float = 60.0        # seconds between meter values while charging (0: none)

    def __post_init__(self) -> None:
        for name in ("authorize_per_hour", "transactions_per_hour", "meter_interval"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} is {getattr(self, name)}: give 0 or more")
        if self.heartbeat is not None and self.heartbeat <= 0:
            raise ValueError(f"heartbeat is {self.heartbeat}: give a period in seconds, or none for the CSMS's")
        if self.transaction_seconds <= 0:
            raise ValueError(f"transaction_seconds is {self.transaction_seconds}: give a duration above 0")


@dataclass(order=True, frozen=True)
class Step:
    at: float
    activity: Activity = field(compare=False)


class Rng(Protocol):
    def uniform(self, a: float, b: float) -> float: ...
    def expovariate(self, lambd: float) -> float: ...


class Draws:
    """A station's seeded random draws in 16 bytes (splitmix64): ``random.Random`` keeps 2.5 KB of state, most
    of what a simulated station's plan cost; a plan draws a handful of numbers an hour."""

    __slots__ = ("_state",)
    _MASK = (1 << 64) - 1

    def __init__(self, seed: str):
        self._state = int.from_bytes(hashlib.blake2b(seed.encode(), digest_size=8).digest(), "big")

    def random(self) -> float:
        """In [0, 1), 53 bits."""
        self._state = (self._state + 0x9E3779B97F4A7C15) & self._MASK
        z = self._state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & self._MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & self._MASK
        return ((z ^ (z >> 31)) >> 11) / (1 << 53)

    def uniform(self, a: float, b: float) -> float:
        return a + (b - a) * self.random()

    def expovariate(self, lambd: float) -> float:
        return -math.log(1.0 - self.random()) / lambd


class Plan:
    """One station's upcoming steps, from ``start`` on (seconds on the runner's clock)."""

    def __init__(self, mix: Mix, rng: Rng | random.Random, start: float):
        self.mix = mix
        self.rng = rng
        self.heartbeat: float | None = None
        self._steps: list[Step] = []
        if mix.authorize_per_hour:
            self._push(start + self._gap(mix.authorize_per_hour), Activity.AUTHORIZE)
        if mix.transactions_per_hour:
            self._push(start + self._gap(mix.transactions_per_hour), Activity.START)
        if mix.heartbeat is not None:
            self.beat_every(mix.heartbeat, start)

    def beat_every(self, period: float | None, now: float) -> None:
        """Heartbeats every ``period`` seconds from ``now`` on, at a random phase (the CSMS's interval, once known);
        None or 0: none from now on."""
        self._steps = [s for s in self._steps if s.activity is not Activity.HEARTBEAT]
        heapq.heapify(self._steps)
        self.heartbeat = period or None
        if self.heartbeat is not None:
            self._push(now + self.rng.uniform(0, self.heartbeat), Activity.HEARTBEAT)

    def peek(self) -> Step | None:
        """The next step, left in the plan (``next`` takes it); None: nothing planned."""
        return self._steps[0] if self._steps else None

    def next(self, now: float) -> Step | None:
        """The next step (its time may be past: it is due), planning the one that follows it; None: nothing planned."""
        if not self._steps:
            return None
        step = heapq.heappop(self._steps)
        if step.activity is Activity.HEARTBEAT:
            if self.heartbeat is not None:
                self._push(max(step.at, now) + self.heartbeat, Activity.HEARTBEAT)
        elif step.activity is Activity.AUTHORIZE:
            self._push(step.at + self._gap(self.mix.authorize_per_hour), Activity.AUTHORIZE)
        elif step.activity is Activity.START:
            self._push(step.at + self.mix.transaction_seconds, Activity.STOP)
        else:
            self._push(step.at + self._gap(self.mix.transactions_per_hour), Activity.START)
        return step

    def _gap(self, per_hour: float) -> float:
        return self.rng.expovariate(per_hour / 3600)

    def _push(self, at: float, activity: Activity) -> None:
        heapq.heappush(self._steps, Step(at, activity))


def ramp_start(index: int, per_second: float) -> float:
    """When station ``index`` connects, in seconds after the run's start: stations join at ``per_second``."""
    return index / per_second
