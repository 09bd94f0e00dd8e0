"""What a load run measured, by time interval: round trips per action, errors by kind, gauges.

Round-trip times go into HDR histograms (``hdrhistogram``: 2 significant digits, 1 µs to 60 s), one per
(interval, action): percentiles per action over time, and over the run by adding them up. A histogram
travels as its compressed encoding, so Locust workers ship what they measured to the master, which adds
it to its own (``drain`` / ``merge``): one report, however many processes measured.

Gauges are the last value seen in an interval, per source (a process: ``local``, ``worker-1``, the
watched ``sut``): the connections held, CPU use, resident memory. Times are passed in (seconds on any
clock); an interval is ``floor(at / interval)``, so processes reading one wall clock line up.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from typing import Any

from hdrh.histogram import HdrHistogram

LOWEST_US, HIGHEST_US, DIGITS = 1, 60_000_000, 2
PERCENTILES = (50, 90, 99)

Listener = Callable[[str, float, str | None], None]   # (action, seconds, error kind or None)


def histogram() -> HdrHistogram:
    return HdrHistogram(LOWEST_US, HIGHEST_US, DIGITS)


def ms(microseconds: float) -> float:
    return round(microseconds / 1000, 2)


class Recorder:
    def __init__(self, interval: float = 5.0, listener: Listener | None = None):
        if interval <= 0:
            raise ValueError(f"interval is {interval}: give the report's resolution in seconds, above 0")
        self.interval = interval
        self.listener = listener            # Locust's request event, in a worker
        self.latency: dict[tuple[int, str], HdrHistogram] = {}
        self.errors: Counter[tuple[int, str]] = Counter()
        self.gauges: dict[tuple[int, str], dict[str, float]] = {}
        self.calls = self.error_count = 0      # since the start, for the progress line
        self.held_from: float | None = None    # when every station was first connected at once

    def bucket(self, at: float) -> int:
        return math.floor(at / self.interval)

    # ---------------------------------------------------------------- recording
    def round_trip(self, action: str, seconds: float, at: float) -> None:
        key = (self.bucket(at), action)
        if key not in self.latency:
            self.latency[key] = histogram()
        self.latency[key].record_value(min(max(round(seconds * 1e6), LOWEST_US), HIGHEST_US))
        self.calls += 1
        if self.listener is not None:
            self.listener(action, seconds, None)

    def error(self, kind: str, at: float, action: str = "connection") -> None:
        self.errors[(self.bucket(at), kind)] += 1
        self.error_count += 1
        if self.listener is not None:
            self.listener(action, 0.0, kind)

    def gauge(self, at: float, source: str, **values: float) -> None:
        self.gauges.setdefault((self.bucket(at), source), {}).update(values)

    # ---------------------------------------------------------------- shipping (Locust workers → master)
    def drain(self) -> dict[str, Any]:
        """What was recorded since the last drain, JSON-able; the recorder starts empty again."""
        shipped = {"interval": self.interval,
                   "latency": [[b, a, h.encode().decode()] for (b, a), h in self.latency.items()],
                   "errors": [[b, k, n] for (b, k), n in self.errors.items()],
                   "gauges": [[b, s, v] for (b, s), v in self.gauges.items()]}
        self.latency, self.errors, self.gauges = {}, Counter(), {}
        return shipped

    def merge(self, shipped: dict[str, Any]) -> None:
        if shipped["interval"] != self.interval:
            raise ValueError(f"a worker measured in {shipped['interval']} s intervals, the master in "
                             f"{self.interval} s: give every process the same --interval")
        for b, action, encoded in shipped["latency"]:
            key = (b, action)
            if key not in self.latency:
                self.latency[key] = histogram()
            self.latency[key].decode_and_add(encoded.encode())
        for b, kind, n in shipped["errors"]:
            self.errors[(b, kind)] += n
        for b, source, values in shipped["gauges"]:
            self.gauges.setdefault((b, source), {}).update(values)

    # ---------------------------------------------------------------- the report
    def report(self, run: dict[str, Any], stations: int | None = None) -> dict[str, Any]:
        """The JSON report: the run's settings, a summary, per action, errors, processes, the timeline.
        ``stations``: how many make "all held" when no process saw them all (a Locust master: each worker
        holds its share, so the first interval whose sum reaches ``stations`` starts the steady state)."""
        buckets = sorted({b for b, _ in self.latency} | {b for b, _ in self.errors} | {b for b, _ in self.gauges})
        first = buckets[0] if buckets else 0
        seconds = (buckets[-1] - first + 1) * self.interval if buckets else 0.0
        held: dict[str, float] = {}     # each source's connections, carried over intervals it did not report
        timeline = [self._moment(b, first, held) for b in range(first, buckets[-1] + 1)] if buckets else []
        actions = {a: _stats(self._total(a), seconds) for a in sorted({a for _, a in self.latency})}
        errors = Counter()
        for (_, kind), n in self.errors.items():
            errors[kind] += n
        connected = [m["connected"] for m in timeline if m["connected"] is not None]
        held_from = self.held_from
        if held_from is None and stations is not None:
            held_from = next(((first + 0.5) * self.interval + m["t"] for m in timeline
                              if (m["connected"] or 0) >= stations), None)
        return {
            "report": "evse-conformance load", "format": 1, "run": run,
            "interval_seconds": self.interval, "seconds": seconds,
            "summary": {
                "connections_held": {"peak": max(connected, default=0), "end": connected[-1] if connected else 0},
                "calls": sum(a["count"] for a in actions.values()),
                "errors": sum(errors.values()),
                "round_trip_ms": {a: {"p50": s["p50_ms"], "p99": s["p99_ms"]} for a, s in actions.items()},
                "round_trip_ms_while_held": self._while_held(held_from),
            },
            "actions": actions,
            "errors": dict(errors.most_common()),
            "processes": self._processes(timeline),
            "timeline": timeline,
        }

    def _total(self, action: str, since: int | None = None) -> HdrHistogram:
        total = histogram()
        for (b, a), h in self.latency.items():
            if a == action and (since is None or b >= since):
                total.add(h)
        return total

    def _while_held(self, held_from: float | None) -> dict[str, dict[str, float]] | None:
        """p50 and p99 per action from the interval after every station was first held on (None: they never
        all were)."""
        if held_from is None:
            return None
        since = self.bucket(held_from) + 1
        totals = {a: self._total(a, since) for a in sorted({a for b, a in self.latency if b >= since})}
        return {a: {"p50": ms(h.get_value_at_percentile(50)), "p99": ms(h.get_value_at_percentile(99))}
                for a, h in totals.items()}

    def _moment(self, b: int, first: int, held: dict[str, float]) -> dict[str, Any]:
        sources = {s: v for (bb, s), v in self.gauges.items() if bb == b}
        held.update({s: v["connected"] for s, v in sources.items() if "connected" in v})
        return {
            "t": round((b - first) * self.interval, 3),
            "connected": sum(held.values()) if held else None,
            "actions": {a: _stats(h, self.interval) for (bb, a), h in sorted(self.latency.items()) if bb == b},
            "errors": sum(n for (bb, _), n in self.errors.items() if bb == b),
            "processes": {s: {k: v[k] for k in ("cpu_percent", "rss_mb", "connected") if k in v}
                          for s, v in sorted(sources.items()) if "rss_mb" in v},
        }

    @staticmethod
    def _processes(timeline: list[dict[str, Any]]) -> dict[str, Any]:
        seen: dict[str, list[dict[str, float]]] = {}
        for moment in timeline:
            for source, values in moment["processes"].items():
                seen.setdefault(source, []).append(values)
        out = {}
        for source, samples in seen.items():
            cpu = [s["cpu_percent"] for s in samples if "cpu_percent" in s]
            rss = [s["rss_mb"] for s in samples]
            out[source] = {"cpu_percent_mean": round(sum(cpu) / len(cpu), 1) if cpu else None,
                           "cpu_percent_peak": max(cpu, default=None),
                           "rss_mb_first": rss[0], "rss_mb_peak": max(rss), "rss_mb_last": rss[-1]}
            held = [s["connected"] for s in samples if "connected" in s]
            if held:      # a load process: the stations it held
                out[source]["connected_peak"] = max(held)
        return out


def _stats(h: HdrHistogram, seconds: float) -> dict[str, float]:
    count = h.get_total_count()
    stats: dict[str, float] = {"count": count, "per_second": round(count / seconds, 2) if seconds else 0.0}
    for p in PERCENTILES:
        stats[f"p{p}_ms"] = ms(h.get_value_at_percentile(p)) if count else None
    stats["max_ms"] = ms(h.get_max_value()) if count else None
    return stats
