"""Self-check 2 for OCPI: every fault of ``catalog_ocpi.py`` is caught, for its reason.

Played like ``test_fault_catalog.py`` (whose runner this reuses): each fault runs only the suite
tests that must catch it, in a pytest session of its own process, with the faulty peer as the
embedded SUT; verdicts are read from ``conformance.json``, so a *broken* test never passes for a
*failed* one. A control run plays the same selections against the unmodified reference peer. The
runs all start up front, and each test reads its own. The OCPI detection rate is printed at the
end of the run.
"""

import importlib

import pytest
from catalog_ocpi import FAULTS, MODULE, PROTOCOL, Fault
from test_fault_catalog import REPO, RULES, RUN_TIMEOUT, assert_caught, started

from harness.reference.ocpi import OcpiPeer

CONTROL = "control"
SELECTION = tuple(sorted({nodeid for fault in FAULTS for nodeid in fault.catch}))


@pytest.fixture(scope="module")
def runs(request, tmp_path_factory):
    jobs = {CONTROL: (SELECTION, (), RUN_TIMEOUT)} \
        | {f.name: (f.catch, (f"--embedded-sut={f.embedded_sut}",), RUN_TIMEOUT) for f in FAULTS}
    with started(request, tmp_path_factory, jobs, {"test_the_selections_pass_against_the_reference": CONTROL}) as runs:
        yield runs


def test_catalog_is_well_formed():
    """Unique names and classes, each a direct subclass of the reference peer that overrides
    something, importable by its path, caught by OCPI suite tests that exist."""
    assert len({f.name for f in FAULTS}) == len(FAULTS), "fault names repeat"
    assert len({f.cls for f in FAULTS}) == len(FAULTS), "two faults share a class"
    assert len(FAULTS) >= 8
    for fault in FAULTS:
        module, _, name = fault.embedded_sut.partition(":")
        assert module == MODULE and getattr(importlib.import_module(module), name) is fault.cls
        assert fault.cls.__bases__ == (OcpiPeer,), fault.name
        assert set(vars(fault.cls)) - {"__module__", "__doc__", "__qualname__", "__firstlineno__",
                                       "__static_attributes__"}, f"{fault.name} overrides nothing"
        assert fault.catch and fault.verdict in ("failed", "finding") and fault.reason, fault.name
        assert fault.rule in RULES, f"{fault.name}: {fault.rule} is no rule of a table"
        for nodeid in fault.catch:
            params = nodeid.partition("[")[2]
            assert params.split("-")[0] in ("cpo", "emsp") and f"-{PROTOCOL}" in params, nodeid
            assert (REPO / nodeid.partition("::")[0]).is_file(), f"{fault.name}: no suite file for {nodeid}"


def test_the_selections_pass_against_the_reference(runs):
    """Control: without a fault every selected test passes, so a caught fault is the fault's doing."""
    result, verdicts = runs[CONTROL].result()
    assert {n: v["verdict"] for n, v in verdicts.items()} == dict.fromkeys(SELECTION, "passed"), \
        result.stdout.str()[-5000:]
    assert result.ret == pytest.ExitCode.OK


@pytest.mark.parametrize("fault", FAULTS, ids=lambda fault: fault.name)
def test_fault_is_caught(runs, checks_fault, fault: Fault):
    """The fault's tests fail (never broken) for the intended reason, and nothing else runs."""
    checks_fault("OCPI fault catalog", FAULTS, fault)
    assert_caught(fault, *runs[fault.name].result())
