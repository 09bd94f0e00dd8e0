"""Self-check 2 for OCPI: every fault of ``catalog_ocpi.py`` is caught, for its reason, and every
legal variant there passes.

Played like ``test_fault_catalog.py`` (whose runner this reuses): each fault runs only the suite
tests that must catch it, in a pytest session of its own process, with the faulty peer as the
embedded SUT; verdicts are read from ``conformance.json``, so a *broken* test never passes for a
*failed* one. A control run plays the same selections against the unmodified reference peer. The
runs the selected tests need all start up front, and each test reads its own. The OCPI detection
rate is printed at the end of the run.
"""

import importlib

import pytest
from catalog_ocpi import FAULTS, MODULE, PROTOCOL, VARIANTS, Fault, Variant, profile_options
from test_fault_catalog import REPO, RULES, RUN_TIMEOUT, assert_caught, started

from harness.reference.ocpi import OcpiPeer


PROFILES = sorted({f.profile for f in FAULTS}, key=str)


def selection(profile) -> list[str]:
    """The tests of the faults played under ``profile``: its control run's selection."""
    return sorted({nodeid for fault in FAULTS if fault.profile == profile for nodeid in fault.catch})


def control(profile) -> str:
    return f"control-{profile.name if profile else 'built-in'}"


def run_of(item: pytest.Item) -> str:
    """The run a test reads: its fault's, its variant's, or the control of its profile."""
    params = item.callspec.params
    if "fault" in params:
        return params["fault"].name
    return f"variant-{params['variant'].name}" if "variant" in params else control(params["profile"])


@pytest.fixture(scope="module")
def runs(request, tmp_path_factory):
    jobs = {control(p): (selection(p), profile_options(p), RUN_TIMEOUT) for p in PROFILES}
    jobs |= {f.name: (f.catch, f.options, RUN_TIMEOUT) for f in FAULTS}
    jobs |= {f"variant-{v.name}": (v.selection, (f"--embedded-sut={v.embedded_sut}",), RUN_TIMEOUT) for v in VARIANTS}
    with started(request, tmp_path_factory, jobs, run_of, varied=True) as runs:
        yield runs


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


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name if p else "built-in")
def test_the_selections_pass_against_the_reference(runs, profile):
    """Control: without a fault every selected test passes under the faults' profile, so a caught
    fault is the fault's doing."""
    result, verdicts = runs[control(profile)].result()
    assert {n: v["verdict"] for n, v in verdicts.items()} == dict.fromkeys(selection(profile), "passed"), \
        result.stdout.str()[-5000:]
    assert result.ret == pytest.ExitCode.OK


@pytest.mark.parametrize("fault", FAULTS, ids=lambda fault: fault.name)
def test_fault_is_caught(runs, checks_fault, fault: Fault):
    """The fault's tests fail (never broken) for the intended reason, and nothing else runs."""
    checks_fault("OCPI fault catalog", FAULTS, fault)
    assert_caught(fault, *runs[fault.name].result())


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda variant: variant.name)
def test_legal_variant_passes(runs, variant: Variant):
    """A legal but unusual platform passes every selected test: the harness blames no answer the
    specification allows; where the variant departs from a SHOULD, each test names it as a finding."""
    result, verdicts = runs[f"variant-{variant.name}"].result()
    output = result.stdout.str()[-5000:]
    assert verdicts and all(entry["verdict"] == "passed" for entry in verdicts.values()), \
        {n: (v["verdict"], v["reason"][:300]) for n, v in verdicts.items() if v["verdict"] != "passed"} or output
    blamed = {n: f for n, v in verdicts.items() for f in v["findings"] if any(f"[{r}]" in f for r in variant.unblamed)}
    assert not blamed, blamed
    if variant.finding:
        assert sorted(verdicts) == sorted(variant.selection), output
        assert all(f"[{variant.finding}]" in "\n".join(entry["findings"]) for entry in verdicts.values()), \
            {n: v["findings"] for n, v in verdicts.items()}
    assert result.ret == pytest.ExitCode.OK, output
