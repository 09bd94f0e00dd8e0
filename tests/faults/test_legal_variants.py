"""Every legal reading passes (issue 32): each legal variant (legal_variants.py) plays its selection as the
embedded SUT, and every selected test passes or is not applicable, never failed or broken. Without the
verdict on a CALLERROR (``harness.ocpp.answers``) the refusals below crashed their tests (broken) or
failed them."""

import json
from pathlib import Path

import pytest
import suite_runner  # importable: tests/conftest.py puts this folder on sys.path
from legal_variants import MODULE, VARIANTS, Variant

REPO = Path(__file__).resolve().parents[2]
RUN_TIMEOUT = 120


def test_variants_are_well_formed():
    assert len({v.name for v in VARIANTS}) == len(VARIANTS)
    for variant in VARIANTS:
        assert variant.embedded_sut.startswith(f"{MODULE}:") and variant.plays and variant.reading
        for nodeid in variant.plays:
            assert f"[{variant.role}-{variant.version}" in nodeid, nodeid
            assert (REPO / nodeid.partition("::")[0]).is_file(), nodeid


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_legal_variant_is_never_blamed(tmp_path, variant: Variant):
    reports = tmp_path / "reports"
    result = suite_runner.run(tmp_path, [f"--reports-dir={reports}", f"--embedded-sut={variant.embedded_sut}",
                                         *(str(REPO / n) for n in variant.plays)], RUN_TIMEOUT, verdicts_only=True)
    conformance = reports / "conformance.json"
    assert conformance.exists(), result.stdout.str()[-3000:]
    verdicts = {r["nodeid"]: r for r in json.loads(conformance.read_text(encoding="utf-8"))["results"]}
    assert sorted(verdicts) == sorted(variant.plays), "the run played other tests than the selection"
    blamed = {n: f"{r['verdict']}: {r['reason']}" for n, r in verdicts.items() if r["verdict"] not in ("passed", "skipped")}
    assert not blamed, f"{variant.name} ({variant.reading}) was blamed:\n" + "\n".join(f"{n} {w}" for n, w in blamed.items())
