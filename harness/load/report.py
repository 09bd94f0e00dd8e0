"""The load report on disk: ``load.json`` (the numbers) and ``load.png`` (the same, to look at).

The picture has one panel per question, on one time axis: how many stations were connected, how long
the CSMS took to answer each action (p50 solid, p99 dashed, log scale), how many calls per second it
answered, what went wrong, and what CPU and memory each measured process used.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

PANELS = 5


def write(report: dict[str, Any], directory: str | Path) -> tuple[Path, Path]:
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    data, picture = directory / "load.json", directory / "load.png"
    data.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    plot(report, picture)
    return data, picture


def publish(report: dict[str, Any], directory: str | Path, out=None) -> tuple[Path, Path]:
    """``write``, then the headline and where the files are, on ``out`` (stderr by default)."""
    import sys
    data, picture = write(report, directory)
    print(f"{headline(report)}\nreport: {data}, {picture}", file=out or sys.stderr, flush=True)
    return data, picture


def headline(report: dict[str, Any]) -> str:
    """One line of the numbers a reader asks first."""
    run, summary = report["run"], report["summary"]
    if "peers" in run:   # an OCPI load: peers registered, not stations connected
        parts = [f"{run['peers']:,} peers ({run['protocol']})",
                 f"registered {summary['connections_held']['peak']:,}"]
    else:
        parts = [f"{run['stations']:,} stations ({run['protocol']})",
                 f"held {summary['connections_held']['peak']:,} peak"]
    for action in ("BootNotification", "Heartbeat", "POST credentials", "GET locations", "GET sessions"):
        if action in summary["round_trip_ms"]:
            p = summary["round_trip_ms"][action]
            parts.append(f"{action} p50 {p['p50']} ms / p99 {p['p99']} ms")
    if "peers" in run:
        held = summary["round_trip_ms_while_held"]
        parts.append("after the storm: " + ", ".join(f"{a} p50 {p['p50']} ms / p99 {p['p99']} ms"
                                                      for a, p in (held or {}).items())
                     if held else f"never all {run['peers']:,} peers registered")
    else:
        parts.append(_while_held(run["stations"], summary["round_trip_ms_while_held"]))
    parts.append(f"{summary['errors']:,} errors")
    return " · ".join(parts)


def _while_held(stations: int, held: dict[str, dict[str, float]] | None) -> str:
    """The steady state's round trips, or why there is none to show."""
    if held is None:
        return f"never all {stations:,} stations held at once: no steady state measured"
    if not held:
        return f"no call answered in a whole interval while all {stations:,} were held: hold longer"
    return f"while all {stations:,} held: " + ", ".join(f"{action} p50 {p['p50']} ms / p99 {p['p99']} ms"
                                                       for action, p in held.items())


def plot(report: dict[str, Any], path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib import pyplot

    timeline = report["timeline"]
    t = [m["t"] for m in timeline]
    figure, axes = pyplot.subplots(PANELS, 1, figsize=(12, 15), sharex=True, constrained_layout=True)
    figure.suptitle(f"Load on {report['run']['url']}\n" + textwrap.fill(headline(report), 110), fontsize=12)
    held, latency, rate, errors, processes = axes

    held.plot(t, [m["connected"] or 0 for m in timeline], color="tab:blue", label="connected")
    held.axhline(report["run"]["stations"], color="grey", linestyle=":", label="stations in the run")
    held.set_ylim(bottom=0)
    held.set_ylabel("stations connected")
    held.legend(loc="lower right")

    actions = list(report["actions"])
    colors = {a: f"C{i % 10}" for i, a in enumerate(actions)}
    measured = False
    for action in actions:
        series = [(m["t"], m["actions"][action]) for m in timeline if action in m["actions"]]
        xs = [x for x, _ in series]
        latency.plot(xs, [s["p50_ms"] for _, s in series], color=colors[action], label=f"{action}")
        latency.plot(xs, [s["p99_ms"] for _, s in series], color=colors[action], linestyle="--")
        rate.plot(xs, [s["per_second"] for _, s in series], color=colors[action], label=action)
        measured = measured or any(s["p99_ms"] > 0 for _, s in series)
    if measured:   # a log scale needs a positive value: a run that timed no answer keeps the linear one
        latency.set_yscale("log")
    latency.set_ylabel("round trip, ms\n(p50 solid, p99 dashed)")
    rate.set_ylabel("answered calls per second")
    if actions:
        latency.legend(loc="upper left", fontsize=8, ncol=3)
        rate.legend(loc="upper left", fontsize=8, ncol=3)

    errors.bar(t, [m["errors"] for m in timeline], width=report["interval_seconds"] * 0.9, color="tab:red",
               align="edge")
    errors.set_ylim(bottom=0, top=max([m["errors"] for m in timeline] + [1]) * 1.1)
    errors.set_ylabel(f"errors per {report['interval_seconds']:g} s")
    kinds = list(report["errors"])[:6]
    if kinds:
        errors.text(0.01, 0.95, "\n".join(f"{report['errors'][k]:,} × {k}" for k in kinds), transform=errors.transAxes,
                    va="top", fontsize=8, family="monospace")
    else:
        errors.text(0.5, 0.5, "no errors", transform=errors.transAxes, ha="center", va="center", color="grey")

    cpu = processes.twinx()
    for i, source in enumerate(report["processes"]):
        points = [(m["t"], m["processes"][source]) for m in timeline if source in m["processes"]]
        processes.plot([x for x, _ in points], [p["rss_mb"] for _, p in points], color=f"C{i}",
                       label=f"{source} memory")
        cpu.plot([x for x, _ in points], [p.get("cpu_percent", 0) for _, p in points], color=f"C{i}", linestyle=":",
                 label=f"{source} CPU")
    processes.set_ylim(bottom=0)
    cpu.set_ylim(bottom=0)
    processes.set_ylabel("resident memory, MB (solid)")
    cpu.set_ylabel("CPU, % of one core (dotted)")
    if report["processes"]:
        processes.legend(loc="lower left", fontsize=8)
    processes.set_xlabel("seconds since the start")
    figure.savefig(path, dpi=90)
    pyplot.close(figure)
