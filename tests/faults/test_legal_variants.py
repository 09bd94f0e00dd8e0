"""Every legal reading passes (issue 32): each variant of ``legal_variants.py`` plays its tests as the embedded SUT, in
one run of its own, and every one of them passes or is not applicable (skipped), never failed nor broken.
Played like the fault catalog (its runner, verdicts read from ``conformance.json``)."""

from __future__ import annotations

import pytest
from legal_variants import VARIANTS, LegalVariant   # importable: tests/conftest.py puts this folder on sys.path
from test_fault_catalog import REPO, RUN_TIMEOUT, started

LEGAL = ("passed", "skipped")


@pytest.fixture(scope="module")
def runs(request, tmp_path_factory):
    jobs = {v.name: (v.plays, (f"--embedded-sut={v.embedded_sut}",), RUN_TIMEOUT) for v in VARIANTS}
    with started(request, tmp_path_factory, jobs, lambda item: item.callspec.params["variant"].name,
                 varied=True) as futures:
        yield futures


def test_the_variants_name_tests_that_exist():
    assert len({v.name for v in VARIANTS}) == len(VARIANTS)
    for variant in VARIANTS:
        assert variant.reading and variant.plays, variant.name
        for nodeid in variant.plays:
            assert (REPO / nodeid.partition("::")[0]).is_file(), f"{variant.name}: no suite file for {nodeid}"


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda variant: variant.name)
def test_a_legal_reading_is_never_failed(runs, variant: LegalVariant):
    result, verdicts = runs[variant.name].result()
    wrong = {nodeid: (verdicts.get(nodeid, {}).get("verdict"), verdicts.get(nodeid, {}).get("reason", "")[:600])
             for nodeid in variant.plays if verdicts.get(nodeid, {}).get("verdict") not in LEGAL}
    assert not wrong, f"{variant.name} ({variant.reading}): {wrong}\n{result.stdout.str()[-3000:]}"
