"""The suites run in pytest-asyncio's strict mode, the default of any project that installs the wheel
(this repository sets ``asyncio_mode = "auto"``, which would hide the difference): an async fixture is
declared with ``pytest_asyncio.fixture`` (strict mode leaves one of plain ``pytest.fixture`` an unawaited
coroutine, an error in every test that uses it) and every async test carries the asyncio mark
(``harness.suite.case`` gives it to a suite file)."""

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SUITE_FILES = sorted((REPO / "suites").rglob("*.py"))


def _name(node: ast.expr) -> str:
    """``pytest.fixture`` for ``@pytest.fixture`` and ``@pytest.fixture(scope=...)`` alike."""
    if isinstance(node, ast.Call):
        node = node.func
    return ast.unparse(node)


def strict_mode_problems(source: str) -> list[str]:
    """What in a suite file breaks under strict mode, each with its fix."""
    tree = ast.parse(source)
    marked = any(isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "pytestmark" for t in node.targets)
                 and ("case(" in ast.unparse(node.value) or "asyncio" in ast.unparse(node.value))
                 for node in tree.body)
    problems = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.AsyncFunctionDef):
            continue
        decorators = [_name(d) for d in node.decorator_list]
        if "pytest.fixture" in decorators:
            problems.append(f"async fixture {node.name} (line {node.lineno}) is declared with pytest.fixture: "
                            f"declare it with pytest_asyncio.fixture")
        if node.name.startswith("test") and not marked and not any("asyncio" in d for d in decorators):
            problems.append(f"async test {node.name} (line {node.lineno}) has no asyncio mark: give the file "
                            f"pytestmark = case(...) or mark the test pytest.mark.asyncio")
    return problems


@pytest.mark.parametrize("path", SUITE_FILES, ids=[str(p.relative_to(REPO / "suites")) for p in SUITE_FILES])
def test_every_suite_file_runs_in_strict_mode(path):
    assert strict_mode_problems(path.read_text(encoding="utf-8")) == []


def test_the_check_catches_a_plain_async_fixture_and_an_unmarked_async_test():
    source = "import pytest\n\n@pytest.fixture(scope='function')\nasync def depot(ocpp):\n    yield 1\n\n" \
             "async def test_x(depot):\n    pass\n"
    problems = strict_mode_problems(source)
    assert len(problems) == 2
    assert "declare it with pytest_asyncio.fixture" in problems[0] and "no asyncio mark" in problems[1]
