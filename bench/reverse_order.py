"""``-p reverse_order`` (bench/ on PYTHONPATH): play the collected tests in the reverse of the order the
harness chose, to find tests whose verdict depends on what an earlier test left in the SUT
(bench/again_real_run.py, bench/PARALLEL.md "Running twice against one SUT")."""

from __future__ import annotations

import pytest


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.reverse()
