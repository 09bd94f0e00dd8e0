"""Self-check 2 for OCPP 1.6: every fault of ``catalog16.py`` is caught, for its reason.

Played like ``test_fault_catalog.py``, whose runner this reuses: each fault runs only
the 1.6 suite tests that must catch it, with the faulty class as the embedded SUT; verdicts come
from the run's ``conformance.json``, so a *broken* test never passes for a *failed* one. A control
run plays the same selections against the unmodified 1.6 references. The runs the selected tests
need all start up front, and each test reads its own.
"""

import importlib
from pathlib import Path

import pytest
from catalog import CONN
from catalog16 import BOOT, FAULTS, MODULE, RPC, SECURITY, VERSION, Fault, node, transport_test
from test_fault_catalog import REPO, RULES, RUN_TIMEOUT, fault_or, started, wire_logs_showing

from harness.ocpp.versions import OcppVersion
from harness.reference import references_for

CONTROL = "control"
SELECTION = tuple(sorted({nodeid for fault in FAULTS for nodeid in fault.catch}))
REGISTERED = "catalog16:ChargePointAlreadyRegistered"
# the charge-point tests that need a BootNotification in the test
NEED_A_BOOT = (node(BOOT, "test_accepted_boot_reports_every_connector", "cs"),
               node(BOOT, "test_boot_pending_then_configured", "cs"), node(BOOT, "test_boot_rejected_then_retried", "cs"),
               node(SECURITY, "test_authorization_key_is_rotated", "cs"),
               transport_test(CONN, "test_station_boots_when_it_connects", "cs", VERSION),
               transport_test(RPC, "test_station_waits_for_the_boot_answer", "cs", VERSION))


@pytest.fixture(scope="module")
def registered_allure(tmp_path_factory) -> Path:
    """The Allure results of the run against the already registered charge point: its wire logs."""
    return tmp_path_factory.mktemp("registered-allure")


@pytest.fixture(scope="module")
def runs(request, tmp_path_factory, registered_allure):
    registered = (f"--embedded-sut={REGISTERED}", f"--alluredir={registered_allure}")
    jobs = {CONTROL: (SELECTION, (), RUN_TIMEOUT), REGISTERED: (NEED_A_BOOT, registered, RUN_TIMEOUT)} \
        | {f.name: (f.catch, (f"--embedded-sut={f.embedded_sut}",), RUN_TIMEOUT) for f in FAULTS}
    with started(request, tmp_path_factory, jobs, fault_or({
            "test_the_selections_pass_against_the_16_references": CONTROL,
            "test_a_charge_point_that_reconnects_without_booting_is_reset_not_blamed": REGISTERED}), varied=True) as runs:
        yield runs


def test_catalog16_is_well_formed():
    """At least 8 faults, unique, each a direct subclass of a 1.6 reference that overrides something,
    importable by its path, caught by existing 1.6 suite tests played with the faulty side as the SUT."""
    assert len(FAULTS) >= 8 and len({f.name for f in FAULTS}) == len({f.cls for f in FAULTS}) == len(FAULTS)
    csms, station = references_for(OcppVersion(VERSION))
    for fault in FAULTS:
        module, _, name = fault.embedded_sut.partition(":")
        assert module == MODULE and getattr(importlib.import_module(module), name) is fault.cls
        reference = csms if fault.role == "csms" else station
        assert fault.cls.__bases__ == (reference,), f"{fault.name} is no direct subclass of {reference.__name__}"
        assert set(vars(fault.cls)) - {"__module__", "__doc__", "__qualname__", "__firstlineno__",
                                       "__static_attributes__"}, f"{fault.name} overrides nothing"
        assert fault.catch and fault.reason and fault.verdict in ("failed", "finding"), fault.name
        assert fault.rule in RULES, f"{fault.name}: {fault.rule} is no rule of a table"
        for nodeid in fault.catch:
            assert f"[{fault.role}-{VERSION}" in nodeid and (REPO / nodeid.partition("::")[0]).is_file(), nodeid


def test_the_selections_pass_against_the_16_references(runs):
    result, verdicts = runs[CONTROL].result()
    assert {n: v["verdict"] for n, v in verdicts.items()} == dict.fromkeys(SELECTION, "passed"), \
        result.stdout.str()[-5000:]


def test_a_charge_point_that_reconnects_without_booting_is_reset_not_blamed(runs, registered_allure):
    """Behaviour rule 4: a registered charge point need not boot when it reconnects. Each test that needs
    its boot restarts it with Reset (Hard) and passes; without the Reset they would fail it for silence."""
    result, verdicts = runs[REGISTERED].result()
    assert {n: v["verdict"] for n, v in verdicts.items()} == dict.fromkeys(NEED_A_BOOT, "passed"), \
        result.stdout.str()[-5000:]
    resets = wire_logs_showing(registered_allure, '"Reset",{"type":"Hard"}')
    assert resets == len(NEED_A_BOOT), f"{resets} wire logs show a Reset"


@pytest.mark.parametrize("fault", FAULTS, ids=lambda fault: fault.name)
def test_16_fault_is_caught(runs, checks_fault, fault: Fault):
    """Only the fault's tests run, each fails (never broken) with the fault's rule and reason, or passes with a
    finding that names them when the rule is a SHOULD."""
    checks_fault("OCPP 1.6 fault catalog", FAULTS, fault)
    result, verdicts = runs[fault.name].result()
    assert sorted(verdicts) == sorted(fault.catch) and all(fault.caught_by(v) for v in verdicts.values()), \
        f"{fault.name}: {[(n, v['verdict'], fault.outcome(v)[:500]) for n, v in verdicts.items()]}"
    assert result.ret == (pytest.ExitCode.TESTS_FAILED if fault.verdict == "failed" else pytest.ExitCode.OK)
