"""A pytest plugin that counts what a finished test leaves behind (``-p retained_memory``): tracemalloc from the
session's start; after each test's tear-down and report, a full collection and the memory still traced. Played
twice over (``RETAINED_PASSES=2``: every collected test once more, as an item of its own), the second pass meets
warm caches, imported modules and registered use cases: what it adds is what finished tests keep.

``RETAINED_OUT``: where the figures go (JSON): the traced bytes after each test and the number of tests in a
pass; with ``RETAINED_TOP=N``, the N places that allocated most of what the last pass kept (``RETAINED_FRAMES``
frames each, 1 unless told). A single pass is compared from its middle. Used by
``tests/selfcheck/test_flat_memory.py`` and the figures of ``bench/LEAN.md``.
"""

from __future__ import annotations

import gc
import json
import os
import tracemalloc
from pathlib import Path

import pytest

_after: list[int] = []      # traced bytes after each test
_marks: set[int] = set()    # after which tests (their index) a snapshot is taken
_snapshots: list[tracemalloc.Snapshot] = []
_per_pass = [0]


def pytest_configure(config: pytest.Config) -> None:
    if not tracemalloc.is_tracing():
        tracemalloc.start(int(os.environ.get("RETAINED_FRAMES", "1")))


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    passes = int(os.environ.get("RETAINED_PASSES", "1"))
    _per_pass[0] = len(items)
    again = []
    for _ in range(passes - 1):
        again += [type(item).from_parent(item.parent, name=item.name, callspec=getattr(item, "callspec", None),
                                              fixtureinfo=item._fixtureinfo, originalname=item.originalname,
                                              keywords=dict(item.keywords))
                  for item in items if isinstance(item, pytest.Function)]
    items[:] = items + again
    if os.environ.get("RETAINED_TOP"):
        _marks.update([len(items) // 2 - 1] if passes == 1 else [len(items) - _per_pass[0] - 1])
        _marks.add(len(items) - 1)


def pytest_runtest_logfinish(nodeid: str, location) -> None:
    gc.collect()
    _after.append(tracemalloc.get_traced_memory()[0])
    if len(_after) - 1 in _marks:
        _snapshots.append(tracemalloc.take_snapshot())


def pytest_unconfigure(config: pytest.Config) -> None:
    out = os.environ.get("RETAINED_OUT")
    if not out:
        return
    figures: dict = {"after": _after, "per_pass": _per_pass[0]}
    if len(_snapshots) >= 2:
        top = int(os.environ["RETAINED_TOP"])
        diff = _snapshots[-1].compare_to(_snapshots[0], "traceback")
        figures["top"] = [{"size_diff": d.size_diff, "count_diff": d.count_diff,
                           "where": [f"{f.filename}:{f.lineno}" for f in d.traceback]} for d in diff[:top]]
    Path(out).write_text(json.dumps(figures))
