"""``-p reverse_order`` (bench/ on PYTHONPATH): the run plays its tests in the reverse of the order it collected
them in, after every other plugin ordered them. A second order against the same SUT shows a test whose verdict
depends on what an earlier test left in the SUT (bench/parallel_real_run.py --again for a CSMS,
bench/again_real_run.py for a station or an OCPI platform; bench/PARALLEL.md).

Meant for a serial run: a parallel run against a CSMS plays its csms_wide tests first, and reversed they would come
last, each other test waiting for them at the run's lock (harness/parallel.py)."""

from __future__ import annotations

import pytest


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.reverse()
