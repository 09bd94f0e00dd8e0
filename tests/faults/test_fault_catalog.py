"""Self-check 2 (design 'Self-checking'): every fault of the catalog is caught.

Each fault runs only the suite tests that must catch it, in a pytest session of its own process
(asyncio and the plugin's global state stay out of this process; suite_runner.py starts them warm),
with the faulty class as the embedded SUT. The verdicts are read from the run's ``conformance.json``:
the harness's own verdict, so a *broken* test (our fault) never passes for a *failed* one (the SUT's). The control run plays the
same selections against the unmodified references: a fault cannot count as caught because its
test fails anyway. The detection rate is printed at the end of the run (see tests/conftest.py).

The module starts the runs its selected tests need up front, and each test reads its own run's
result.
"""

import importlib
import json
import os
import subprocess
import zlib
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import pytest
import suite_runner  # importable, like the catalogs: tests/conftest.py puts this folder on sys.path
from catalog import CONN, FAULTS, RPC, VERSION, Fault, embedded_sut, transport_test
from catalog.transport import StationAlreadyRegistered

from harness.ocpp.versions import OcppVersion
from harness.reference import references_for
from harness.suite import load_rule_tables

FAULTS_DIR = Path(__file__).resolve().parent
REPO = FAULTS_DIR.parents[1]
RULES = load_rule_tables(REPO / "suites")   # every rule id a fault may name
RUN_TIMEOUT = 120        # seconds for one suite run; the longest selection waits one action timeout (5 s)
KNOWN_MISS_TIMEOUT = 15  # a known miss hangs; a fixed harness fails it after one call timeout (5 s)
PARALLEL = 4             # suite runs handed to suite_runner at a time (it plays one per core)
CONTROL = "control"      # the run of every selection against the unmodified references
# the seeds of legal variance the fault runs play under (FAULT_VARIANCE_SEEDS="1,2,3"; one seed per run)
VARIANCE_SEEDS = tuple(int(seed) for seed in os.environ.get("FAULT_VARIANCE_SEEDS", "1,2,3").split(","))
# (the tests of a fault played with a profile variant have theirs: tests/selfcheck/test_profile_variants.py)
CONTROL_SELECTION = tuple(sorted({nodeid for fault in FAULTS if not fault.profile for nodeid in fault.catch}))


def run_suites(directory: Path, nodeids, *options: str, timeout: float = RUN_TIMEOUT):
    """Run exactly ``nodeids`` in a pytest session of its own working in ``directory`` (a warm worker,
    see suite_runner.py); return its RunResult and its verdicts by node id. A run that outlives
    ``timeout`` raises ``subprocess.TimeoutExpired``."""
    reports = directory / "reports"
    result = suite_runner.run(directory, [f"--reports-dir={reports}", *options,
                                          *(str(REPO / nodeid) for nodeid in nodeids)], timeout, verdicts_only=True)
    conformance = reports / "conformance.json"
    assert conformance.exists(), \
        f"the suite run wrote no conformance.json:\n{result.stdout.str()[-3000:]}{result.stderr.str()[-2000:]}"
    results = json.loads(conformance.read_text(encoding="utf-8"))["results"]
    return result, {r["nodeid"]: r for r in results}


def _job(name: str) -> tuple[tuple[str, ...], tuple[str, ...], float]:
    """Selection, options and time limit of the run called ``name`` (a fault's name or CONTROL)."""
    if name == CONTROL:
        return CONTROL_SELECTION, (), RUN_TIMEOUT
    fault = next(f for f in FAULTS if f.name == name)
    options = (f"--embedded-sut={fault.embedded_sut}",) + ((f"--sut-profile={REPO / fault.profile}",) if fault.profile
                                                           else ())
    return fault.catch, options, KNOWN_MISS_TIMEOUT if fault.known_miss else RUN_TIMEOUT


# the runs that take longest first: a known miss waits for its time limit
RUN_ORDER = [f.name for f in FAULTS if f.known_miss] + [CONTROL] + [f.name for f in FAULTS if not f.known_miss]


def fault_or(by_test: dict[str, str]) -> Callable[[pytest.Item], str]:
    """The run a test needs: a fault's test its fault's run, another test the run ``by_test`` names."""
    def run_of(item: pytest.Item) -> str:
        fault = item.callspec.params.get("fault") if hasattr(item, "callspec") else None
        return fault.name if fault is not None else by_test[item.originalname]
    return run_of


def variance_options(name: str) -> tuple[str, ...]:
    """The legal variance run ``name`` plays under: one of ``VARIANCE_SEEDS``, picked by its name, every freedom
    but the actuator's refusal (a refused action makes the catching test not applicable, as it may, and would
    hide the fault). ``bench/variance_faults.sh`` plays every fault under each seed in turn."""
    seed = VARIANCE_SEEDS[zlib.crc32(name.encode()) % len(VARIANCE_SEEDS)]
    return f"--variance={seed}", "--variance-skip=actuator.unsupported"


@contextmanager
def started(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, jobs: dict[str, tuple],
            run_of: Callable[[pytest.Item], str], *, varied: bool = False) -> Iterator[dict[str, Future]]:
    """The ``jobs`` (name → selection, options, time limit) that the selected tests of the requesting
    module need (``run_of(test)`` names one's), all submitted at once in their order; each test
    reads its own run's result. ``varied``: each run against stand-ins that take legal variance
    (``variance_options``): a fault must be caught, a legal reading pass, whichever freedoms they take."""
    needed = {run_of(item) for item in request.session.items
              if item.module is request.module and request.fixturename in item.fixturenames}
    with ThreadPoolExecutor(PARALLEL) as pool:
        yield {name: pool.submit(run_suites, tmp_path_factory.mktemp(name), selection, *options,
                                 *(variance_options(name) if varied else ()), timeout=timeout)
               for name, (selection, options, timeout) in jobs.items() if name in needed}


@pytest.fixture(scope="module")
def suite_runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Future]:
    with started(request, tmp_path_factory, {name: _job(name) for name in RUN_ORDER},
                 fault_or({"test_the_selections_pass_against_the_references": CONTROL}), varied=True) as runs:
        yield runs


def test_catalog_is_well_formed():
    """Unique names, each class a direct subclass of the reference of its role and version, importable by
    its path in a block module of the catalog, overriding something, and caught by tests of its own role and version."""
    csms, station = references_for(OcppVersion(VERSION))
    assert len({f.name for f in FAULTS}) == len(FAULTS), "fault names repeat"
    assert len({f.cls for f in FAULTS}) == len(FAULTS), "two faults share a class"
    for fault in FAULTS:
        module, _, name = fault.embedded_sut.partition(":")
        assert module.startswith("catalog.") and getattr(importlib.import_module(module), name) is fault.cls
        reference = csms if fault.role == "csms" else station
        assert fault.cls.__bases__ == (reference,), f"{fault.name} is no direct subclass of {reference.__name__}"
        assert set(vars(fault.cls)) - {"__module__", "__doc__", "__qualname__", "__firstlineno__",
                                       "__static_attributes__"}, f"{fault.name} overrides nothing"
        assert fault.catch and fault.verdict in ("failed", "finding") and fault.reason, fault.name
        assert fault.rule in RULES, f"{fault.name}: {fault.rule} is no rule of a table"
        for nodeid in fault.catch:
            assert f"[{fault.role}-{fault.version}" in nodeid, \
                f"{fault.name}: {nodeid} is not played with the SUT as {fault.role} in {fault.version}"
            assert (REPO / nodeid.partition("::")[0]).is_file(), f"{fault.name}: no suite file for {nodeid}"


NEED_A_BOOT = (transport_test(CONN, "test_station_boots_when_it_connects", "cs", VERSION),
               transport_test(RPC, "test_station_waits_for_the_boot_answer", "cs", VERSION))


def wire_logs_showing(allure: Path, *frames: str) -> int:
    """How many tests' wire logs (Allure attachments) contain every one of ``frames``."""
    logs = (p.read_text(encoding="utf-8") for p in allure.glob("*-attachment.*"))
    return sum(all(frame in log for frame in frames) for log in logs)


def test_a_station_that_reconnects_without_booting_is_reset_not_blamed(tmp_path):
    """A registered station need not boot when it reconnects. The 2.x tests that need its boot restart it
    with Reset (Immediate) and pass; without the Reset they would fail it for silence."""
    allure = tmp_path / "allure"
    result, verdicts = run_suites(tmp_path, NEED_A_BOOT, f"--embedded-sut={embedded_sut(StationAlreadyRegistered)}",
                                  f"--alluredir={allure}")
    assert {n: v["verdict"] for n, v in verdicts.items()} == dict.fromkeys(NEED_A_BOOT, "passed"), \
        result.stdout.str()[-5000:]
    resets = wire_logs_showing(allure, '"Reset",{"type":"Immediate"}', '"reason":"RemoteReset"')
    assert resets == len(NEED_A_BOOT), f"{resets} wire logs show a Reset and a RemoteReset boot"


def test_the_selections_pass_against_the_references(suite_runs):
    """Control: without a fault every selected test passes, so a caught fault is the fault's doing."""
    result, verdicts = suite_runs[CONTROL].result()
    assert {n: v["verdict"] for n, v in verdicts.items()} == dict.fromkeys(CONTROL_SELECTION, "passed"), \
        result.stdout.str()[-5000:]
    assert result.ret == pytest.ExitCode.OK


def assert_caught(fault: Fault, result: pytest.RunResult, verdicts: dict[str, dict]) -> None:
    """Only the fault's tests ran; each got the fault's verdict for the fault's reason."""
    output = result.stdout.str()
    assert sorted(verdicts) == sorted(fault.catch), f"the run played other tests than the selection:\n{output[-3000:]}"
    for nodeid in fault.catch:
        entry = verdicts[nodeid]
        assert fault.caught_by(entry), (f"{fault.name}: {nodeid} is {entry['verdict']}, expected {fault.verdict} "
                                        f"naming [{fault.rule}] and {fault.reason!r}: {fault.outcome(entry)}")
    assert fault.reason.casefold() in output.casefold()   # read as caught_by reads it: ids in either case
    expected = pytest.ExitCode.TESTS_FAILED if fault.verdict == "failed" else pytest.ExitCode.OK
    assert result.ret == expected, output[-3000:]


def _param(fault: Fault):
    """A known miss (the harness cannot catch it yet) hangs its run: a strict xfail until it is fixed."""
    marks = [pytest.mark.xfail(strict=True, raises=subprocess.TimeoutExpired, reason=fault.known_miss)] \
        if fault.known_miss else []
    return pytest.param(fault, id=fault.name, marks=marks)


@pytest.mark.parametrize("fault", [_param(f) for f in FAULTS])
def test_fault_is_caught(suite_runs, checks_fault, fault: Fault):
    """The fault's tests fail (never broken) for the intended reason, and nothing else runs."""
    checks_fault("fault catalog", FAULTS, fault)
    assert_caught(fault, *suite_runs[fault.name].result())
