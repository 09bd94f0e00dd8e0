"""A use case is collected only in the versions whose text defines it (``harness.suite.DEFINED_IN``)."""

from pathlib import Path

import pytest

from harness.suite import DEFINED_IN, OCPP2, USECASES, case, load_rule_tables

REPO = Path(__file__).resolve().parents[2]


def test_a_use_case_declared_in_a_version_that_does_not_define_it_is_refused():
    with pytest.raises(ValueError, match="C17 is not defined in ocpp2.0.1"):
        case("C17", block="Authorization", roles=("cs",), protocols=OCPP2)


def test_every_suite_declares_only_the_versions_that_define_its_use_case():
    load_rule_tables(REPO / "suites")   # runs every suite file's case()
    for usecase, versions in DEFINED_IN.items():
        if usecase in USECASES:
            assert set(USECASES[usecase].protocols) <= set(versions), usecase
    assert USECASES["C17"].protocols == ("ocpp2.1",)
