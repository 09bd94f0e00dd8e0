"""Self-check 2 for OCPP 1.6: every fault of ``catalog16.py`` is caught, for its reason.

Played like ``test_fault_catalog.py``, whose subprocess runner this reuses: each fault runs only
the 1.6 suite tests that must catch it, with the faulty class as the embedded SUT; verdicts come
from the run's ``conformance.json``, so a *broken* test never passes for a *failed* one. A control
run plays the same selections against the unmodified 1.6 references. The runs mostly wait, so
they all start up front, a few at a time, and each test reads its own.
"""

import importlib
from concurrent.futures import ThreadPoolExecutor

import pytest
from catalog16 import FAULTS, MODULE, VERSION, Fault16
from test_fault_catalog import PARALLEL, REPO, run_suites

from harness.reference.v16 import ReferenceCsms16, ReferenceStation16

CONTROL = "control"
SELECTION = tuple(sorted({nodeid for fault in FAULTS for nodeid in fault.catch}))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    jobs = {CONTROL: (SELECTION, ())} | {f.name: (f.catch, (f"--embedded-sut={f.embedded_sut}",)) for f in FAULTS}
    with ThreadPoolExecutor(PARALLEL) as pool:
        yield {name: pool.submit(run_suites, tmp_path_factory.mktemp(name), selection, *options)
               for name, (selection, options) in jobs.items()}


def test_catalog16_is_well_formed():
    """At least 8 faults, unique, each a direct subclass of a 1.6 reference that overrides something,
    importable by its path, caught by existing 1.6 suite tests played with the faulty side as the SUT."""
    assert len(FAULTS) >= 8 and len({f.name for f in FAULTS}) == len({f.cls for f in FAULTS}) == len(FAULTS)
    for fault in FAULTS:
        module, _, name = fault.embedded_sut.partition(":")
        assert module == MODULE and getattr(importlib.import_module(module), name) is fault.cls
        assert fault.cls.__bases__ == (ReferenceCsms16 if fault.role == "csms" else ReferenceStation16,), fault.name
        assert set(vars(fault.cls)) - {"__module__", "__doc__", "__qualname__", "__firstlineno__",
                                       "__static_attributes__"}, f"{fault.name} overrides nothing"
        assert fault.catch and fault.reason and fault.rule and fault.verdict == "failed", fault.name
        for nodeid in fault.catch:
            assert f"[{fault.role}-{VERSION}" in nodeid and (REPO / nodeid.partition("::")[0]).is_file(), nodeid


def test_the_selections_pass_against_the_16_references(runs):
    result, verdicts = runs[CONTROL].result()
    assert {n: v["verdict"] for n, v in verdicts.items()} == dict.fromkeys(SELECTION, "passed"), \
        result.stdout.str()[-5000:]


@pytest.mark.parametrize("fault", FAULTS, ids=lambda fault: fault.name)
def test_16_fault_is_caught(runs, fault: Fault16):
    """Only the fault's tests run, each fails (never broken) with the fault's reason."""
    result, verdicts = runs[fault.name].result()
    outcome = {n: (v["verdict"], fault.reason in v["reason"]) for n, v in verdicts.items()}
    assert outcome == dict.fromkeys(fault.catch, ("failed", True)), \
        f"{fault.name}: {[(n, v['verdict'], v['reason'][:500]) for n, v in verdicts.items()]}"
    assert result.ret == pytest.ExitCode.TESTS_FAILED
