"""Collect ``bench_*.py`` files: pytest only looks for ``test_*.py`` by default and the repository
has no pytest configuration of its own for this folder."""

import pytest


def pytest_collect_file(file_path, parent):
    if file_path.name.startswith("bench_") and file_path.suffix == ".py":
        return pytest.Module.from_parent(parent, path=file_path)
    return None


@pytest.fixture
def measure_once(benchmark):
    """``measure_once(measure, summary)``: run a measurement that times itself once (interleaved rounds, a
    soak); its numbers go to the benchmark's extra_info and ``summary(numbers)`` to the terminal (-s)."""
    def run(measure, summary):
        result = benchmark.pedantic(measure, rounds=1, iterations=1)
        benchmark.extra_info.update(result)
        print("\n" + summary(result))
        return result
    return run
