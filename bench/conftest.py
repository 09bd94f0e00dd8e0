"""Collect ``bench_*.py`` files: pytest only looks for ``test_*.py`` by default and the repository
has no pytest configuration of its own for this folder."""

import pytest


def pytest_collect_file(file_path, parent):
    if file_path.name.startswith("bench_") and file_path.suffix == ".py":
        return pytest.Module.from_parent(parent, path=file_path)
    return None
