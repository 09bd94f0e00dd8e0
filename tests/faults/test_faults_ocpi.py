"""Self-check 2 for OCPI: every fault of ``catalog_ocpi.py`` is caught, for its reason, and every
legal variant there passes.

Played like ``test_fault_catalog.py`` (whose runner this reuses): each fault runs only the suite
tests that must catch it, in a fresh pytest subprocess, with the faulty peer as the embedded SUT;
verdicts are read from ``conformance.json``, so a *broken* test never passes for a *failed* one.
A control run plays the same selections against the unmodified reference peer. The OCPI
detection rate is printed at the end of the run.
"""

import importlib

import pytest
from catalog_ocpi import FAULTS, MODULE, PROTOCOL, VARIANTS, Fault, Variant, profile_options
from test_fault_catalog import REPO, RULES, _run_suites, assert_caught

from harness.reference.ocpi import OcpiPeer


class _DetectionRate:
    """Prints the OCPI detection rate in the terminal summary (a plugin registered by the fixture)."""

    def __init__(self) -> None:
        self.detected: dict[str, bool] = {}

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if not self.detected:
            return
        caught = sum(self.detected.values())
        line = f"OCPI fault catalog: {caught}/{len(self.detected)} faults caught ({caught / len(self.detected):.0%})"
        if len(self.detected) < len(FAULTS):
            line += f"; {len(FAULTS) - len(self.detected)} of the {len(FAULTS)} faults not run"
        terminalreporter.write_sep("-", "OCPI fault catalog")
        terminalreporter.write_line(line)
        for name, ok in self.detected.items():
            if not ok:
                terminalreporter.write_line(f"  not caught: {name}")


@pytest.fixture
def ocpi_detected(pytestconfig: pytest.Config) -> dict[str, bool]:
    rate = pytestconfig.pluginmanager.get_plugin("ocpi-fault-rate")
    if rate is None:
        rate = _DetectionRate()
        pytestconfig.pluginmanager.register(rate, "ocpi-fault-rate")
    return rate.detected


def test_catalog_is_well_formed():
    """Unique names and classes, each a direct subclass of the reference peer that overrides
    something, importable by its path, caught by OCPI suite tests that exist."""
    assert len({f.name for f in FAULTS}) == len(FAULTS), "fault names repeat"
    assert len({(f.cls, f.profile) for f in FAULTS}) == len(FAULTS), "two faults share a class and a profile"
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


@pytest.mark.parametrize("profile", sorted({f.profile for f in FAULTS}, key=str), ids=lambda p: p.name if p else "built-in")
def test_the_selections_pass_against_the_reference(pytester, monkeypatch, profile):
    """Control: without a fault every selected test passes under the faults' profile, so a caught
    fault is the fault's doing."""
    selection = sorted({nodeid for fault in FAULTS if fault.profile == profile for nodeid in fault.catch})
    result, verdicts = _run_suites(pytester, monkeypatch, selection, *profile_options(profile))
    assert {n: v["verdict"] for n, v in verdicts.items()} == dict.fromkeys(selection, "passed"), \
        result.stdout.str()[-5000:]
    assert result.ret == pytest.ExitCode.OK


@pytest.mark.parametrize("fault", FAULTS, ids=lambda fault: fault.name)
def test_fault_is_caught(pytester, monkeypatch, ocpi_detected, fault: Fault):
    """The fault's tests fail (never broken) for the intended reason, and nothing else runs."""
    ocpi_detected[fault.name] = False
    result, verdicts = _run_suites(pytester, monkeypatch, fault.catch, *fault.options)
    assert_caught(fault, result, verdicts)
    ocpi_detected[fault.name] = True


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda variant: variant.name)
def test_legal_variant_passes(pytester, monkeypatch, variant: Variant):
    """A legal but unusual platform passes every selected test: the harness blames no answer the
    specification allows; where the variant departs from a SHOULD, each test names it as a finding."""
    result, verdicts = _run_suites(pytester, monkeypatch, variant.selection, f"--embedded-sut={variant.embedded_sut}")
    output = result.stdout.str()[-5000:]
    assert verdicts and all(entry["verdict"] == "passed" for entry in verdicts.values()), \
        {n: (v["verdict"], v["reason"][:300]) for n, v in verdicts.items() if v["verdict"] != "passed"} or output
    if variant.finding:
        assert sorted(verdicts) == sorted(variant.selection), output
        assert all(f"[{variant.finding}]" in "\n".join(entry["findings"]) for entry in verdicts.values()), \
            {n: v["findings"] for n, v in verdicts.items()}
    assert result.ret == pytest.ExitCode.OK, output
