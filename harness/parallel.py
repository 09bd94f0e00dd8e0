"""A run against a real SUT spread over pytest-xdist workers (``-n N``).

Each worker plays a station of its own: worker ``gwI`` plays the I-th of the profile's ``[station]
identities`` (its password, key, EVSEs and tokens where the entry gives them), so the workers' tests meet
at the CSMS under test only as its stations meet there. A test that changes what the SUT does for every
station (a 1.6 CSMS set to answer boots Pending, ``@pytest.mark.csms_wide``) runs alone: the workers share
a lock file, each test holds it shared and a ``csms_wide`` test holds it exclusively, so none of the other
workers' tests overlaps it. The embedded run (every peer in one process per worker) needs none of this.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harness.errors import ConfigError
from harness.profile import Profile

MARKER = "csms_wide"
# how long each test waits on the clock, as the embedded run measured it on its virtual clock (against a prompt SUT
# a test takes its waits): the longest first on a first run, before a run of one's own says better (written by
# ``python -m harness.parallel clock-durations REPORT``; tests/selfcheck/test_embedded_run.py keeps it true)
CLOCK_DURATIONS = Path(__file__).with_name("clock_durations.json")
LONG = 5.0   # seconds on the clock from which a test is listed there (the shorter ones barely reorder a run)


def scheduling(config: Any) -> None:
    """A run against a real SUT spread over workers with xdist's ``load`` scheduling hands each worker one test at
    a time (``--maxschedchunk 1``) unless told otherwise: by default ``load`` hands a worker a run of consecutive
    tests, and a use case's real-clock waits (J01's five 30 s clock-aligned tests) then queue on one worker while
    the others idle (``worksteal`` does no better: it starts from contiguous shares and steals their tails)."""
    if getattr(config.option, "dist", "no") != "load" or getattr(config.option, "maxschedchunk", 0) is not None:
        return
    if config.getoption("sut", None) or config.getini("sut"):
        config.option.maxschedchunk = 1


def workers_asked(config: Any) -> int:
    """The xdist workers of this run (0 without xdist), as its controller or one of its workers sees it."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        return int(workerinput.get("workercount", 1))
    if getattr(config.option, "dist", "no") == "no":
        return 0
    return int(getattr(config.option, "numprocesses", 0) or 0)


def worker_index(config: Any) -> int | None:
    """This process's xdist worker number (gw3 → 3), None in the controller or a run without xdist."""
    workerinput = getattr(config, "workerinput", None)
    return None if workerinput is None else int(str(workerinput["workerid"]).removeprefix("gw"))


def identity_problem(profile: Profile, workers: int) -> str | None:
    """Why ``workers`` xdist workers cannot each play a station identity of their own, with the fix."""
    listed = profile.identities
    if workers <= 1 or len(listed) >= workers:
        return None
    fewer = f"run with -n {len(listed)}" if len(listed) > 1 else "run without -n"
    return (f"-n {workers} spreads the run over {workers} xdist workers, each playing a station identity of its "
            f"own, but the profile {profile.source} lists {len(listed)} ([station] identities); list at least "
            f"{workers} stations the CSMS under test knows, e.g. identities = "
            f"[{', '.join(repr(f'CS{i:03d}') for i in range(1, workers + 1))}] under [station] (a table per station "
            f"gives its own password, authorization_key, evse or tokens), or {fewer}").replace("'", '"')


def worker_profile(profile: Profile, config: Any) -> Profile:
    """The profile this process plays: in xdist worker I of a run whose profile lists identities, as its I-th
    station; otherwise ``profile`` itself (a serial run plays [station] identity)."""
    index, workers = worker_index(config), workers_asked(config)
    if index is None or not profile.identities:
        return profile
    problem = identity_problem(profile, workers)
    if problem:
        raise ConfigError(problem)
    if index >= len(profile.identities):   # xdist numbers a worker that replaces a crashed one anew
        raise ConfigError(f"xdist worker gw{index} has no station identity of its own: the profile lists "
                          f"{len(profile.identities)}; list more in [station] identities than -n, or run with "
                          f"--max-worker-restart 0")
    return profile.as_identity(profile.identities[index])


LOCK = "evse_conformance_lock"   # the key of the lock file's path in each worker's xdist workerinput


def new_lock() -> Path:
    """The controller's lock file for the workers of one parallel run against a real SUT (in a directory of
    its own, removed by ``cleaned``)."""
    return Path(tempfile.mkdtemp(prefix="evse-conformance-")) / "run.lock"


def first(items: list[Any], last_run: Path | None = None, sut: dict[str, Any] | None = None) -> list[Any]:
    """The order a parallel run plays ``items`` in. The csms_wide tests first: they run alone, before any other test
    starts (``after_the_wide_ones``). Then, when ``last_run`` (the reports directory's conformance.json) is a run of
    the same SUT role and protocol (``sut``), the longest tests of that run first, else the longest on the embedded
    run's clock (``CLOCK_DURATIONS``), so that no worker starts a long wait while the others run out of tests: the
    longest and the shortest in turn, since xdist hands each worker two consecutive tests to start with, and two long
    ones given to one worker would wait one after the other (the 1.6 run's 20 s and 11 s did). Stable, and read from
    the same files, so every worker collects the same order."""
    took = _durations(last_run, sut or {}) or clock_durations()
    wide = sorted((item for item in items if item.get_closest_marker(MARKER) is not None),
                  key=lambda item: -took.get(item.nodeid, 0.0))
    rest = sorted((item for item in items if item.get_closest_marker(MARKER) is None),
                  key=lambda item: -took.get(item.nodeid, 0.0))
    if not any(took.get(item.nodeid) for item in rest):
        return wide + rest   # nothing known of their durations: the collection's order
    in_turn = [rest[i // 2] if i % 2 == 0 else rest[-1 - i // 2] for i in range(len(rest))]
    return wide + in_turn


def clock_durations() -> dict[str, float]:
    """{node id: seconds} the embedded run's tests waited on its clock, those of ``LONG`` seconds or more."""
    try:
        return json.loads(CLOCK_DURATIONS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def measured_on_the_clock(report: dict[str, Any]) -> dict[str, float]:
    """What ``CLOCK_DURATIONS`` holds, from an embedded run's conformance.json: its tests of ``LONG`` s or more."""
    return {r["nodeid"]: r["clock_s"] for r in sorted(report.get("results", ()), key=lambda r: r["nodeid"])
            if (r.get("clock_s") or 0.0) >= LONG}


def _durations(last_run: Path | None, sut: dict[str, Any]) -> dict[str, float]:
    """{node id: seconds} of an earlier run against a SUT of the same role and protocol (none: empty)."""
    try:
        report = json.loads(last_run.read_text()) if last_run is not None else {}
    except (OSError, ValueError):
        return {}
    earlier = report.get("sut") or {}
    if not sut.get("role") or (earlier.get("role"), earlier.get("protocol")) != (sut.get("role"), sut.get("protocol")):
        return {}
    return {r["nodeid"]: float(r.get("duration") or 0.0) for r in report.get("results", ()) if "nodeid" in r}


def lock_path(config: Any) -> Path | None:
    """The lock file this worker shares with the others of its run (None: not a parallel run against a SUT)."""
    workerinput = getattr(config, "workerinput", None)
    path = workerinput.get(LOCK) if workerinput is not None else None
    return Path(path) if path else None


@contextlib.contextmanager
def held(path: Path, *, exclusive: bool) -> Iterator[None]:
    """The run's lock, shared by every test, exclusive for a ``csms_wide`` one. A turnstile (a second file,
    taken exclusively only to pass) keeps the workers from starving an exclusive test: once it waits at the
    turnstile, no test starts before it has run."""
    turnstile = path.with_suffix(".turnstile")
    with open(path, "a+b") as lock, open(turnstile, "a+b") as gate:
        fcntl.flock(gate, fcntl.LOCK_EX)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        finally:
            if not exclusive:
                fcntl.flock(gate, fcntl.LOCK_UN)
        try:
            if exclusive:
                fcntl.flock(gate, fcntl.LOCK_UN)   # the others queue on the lock itself, behind this test
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


WIDE_FIRST_PATIENCE = 120.0   # seconds a test waits for the run's csms_wide tests to be played before it starts


def _played_mark(path: Path, nodeid: str) -> Path:
    return path.with_name("played-" + hashlib.sha1(nodeid.encode()).hexdigest()[:16])


def played(path: Path, nodeid: str) -> None:
    """A csms_wide test of the run ended (whatever its verdict): the other tests may start."""
    _played_mark(path, nodeid).touch()


def after_the_wide_ones(path: Path, wide: frozenset[str], *, patience: float = WIDE_FIRST_PATIENCE) -> None:
    """A test that is not csms_wide starts once every csms_wide test of the run was played. Without this, a worker's
    first test may be a long one (40 s of clock-aligned values) that starts as the run begins, a csms_wide test on
    another worker then waits for it at the lock, holding the turnstile, and every worker idles behind the two (the
    1.6 run's workers lost ~30 s so). The csms_wide tests come first in every worker's share (``first``: they
    lead the order, and xdist hands the first tests out a worker in turn), so the wait ends as soon as they have
    run; after ``patience`` s (another scheduling) the test starts anyway, and the lock alone keeps them apart."""
    deadline = time.monotonic() + patience
    while any(not _played_mark(path, nodeid).exists() for nodeid in wide) and time.monotonic() < deadline:
        time.sleep(0.05)


def cleaned(path: Path) -> None:
    """The lock files of a finished run, removed by the controller."""
    for mark in path.parent.glob("played-*"):
        with contextlib.suppress(OSError):
            os.unlink(mark)
    for name in (path, path.with_suffix(".turnstile"), path.parent):
        with contextlib.suppress(OSError):
            os.rmdir(name) if name.is_dir() else os.unlink(name)


def main(argv: list[str] | None = None) -> None:
    """``python -m harness.parallel clock-durations REPORT``: ``CLOCK_DURATIONS`` from an embedded run's
    conformance.json (``pytest suites``, every suite, no --variance)."""
    import argparse
    parser = argparse.ArgumentParser(prog="python -m harness.parallel", description=main.__doc__)
    parser.add_argument("command", choices=["clock-durations"])
    parser.add_argument("report", type=Path, help="the embedded run's reports/conformance.json")
    options = parser.parse_args(argv)
    report = json.loads(options.report.read_text(encoding="utf-8"))
    if report.get("sut", {}).get("url") is not None or not report.get("results"):
        raise SystemExit(f"{options.report} is no embedded run of the suites: run `pytest suites` without --sut")
    measured = measured_on_the_clock(report)
    CLOCK_DURATIONS.write_text(json.dumps(measured, indent=1) + "\n", encoding="utf-8")
    print(f"{CLOCK_DURATIONS}: {len(measured)} tests of {LONG:g} s or more on the clock")


if __name__ == "__main__":
    main()
