"""The certification id table (docs/certification-ids.md) is what the suites' markers make, every id in it is
on collected tests and in a public listing, and every use case belongs to a certification profile."""

import re
from pathlib import Path

import pytest

from harness import certification

REPO = Path(__file__).resolve().parents[2]
TABLE = REPO / "docs" / "certification-ids.md"


@pytest.fixture(scope="module")
def collected():
    return certification.collect(str(REPO / "suites"))


@pytest.fixture(scope="module")
def entries(collected):
    return certification.entries_of(collected)


def test_the_table_is_what_the_script_makes(entries, collected):
    made = certification.render_table(certification.table_rows(entries), collected)
    assert TABLE.read_text(encoding="utf-8") == made, (
        "docs/certification-ids.md is out of date: run python -m harness.certification docs/certification-ids.md")


def test_every_id_in_the_table_is_on_collected_tests_and_in_a_public_listing(entries):
    collected = {tc for tc, *_ in entries}
    in_table = set(re.findall(r"^\| (TC_\w+) \|", TABLE.read_text(encoding="utf-8"), re.M))
    assert in_table == collected
    assert not [tc for tc in in_table if certification.listing_of(tc) is None]
    assert len(in_table) >= 150


def test_an_id_is_on_the_side_its_name_says(entries):
    wrong = [(tc, node, role) for tc, node, role, _ in entries if (role == "csms") != tc.endswith("_CSMS")]
    assert not wrong


def test_every_use_case_has_a_certification_profile(collected):
    unmapped = {(t.usecase, t.protocol) for t in collected
                if certification.profile_of(t.usecase, t.block, t.protocol) not in certification.PROFILES}
    assert len({t.usecase for t in collected}) > 80 and not unmapped


def test_the_profile_table_places_use_cases_as_the_listings_do():
    assert certification.profile_of("K01", "Smart charging", "ocpp2.0.1") == "OCPP 2.x · Smart Charging"
    assert certification.profile_of("K15", "Smart charging", "ocpp2.0.1") == "OCPP 2.x · ISO 15118"
    assert certification.profile_of("C13", "Authorization", "ocpp2.0.1") == "OCPP 2.x · Local Auth List Management"
    assert certification.profile_of("SP3", "Security", "ocpp2.0.1") == "OCPP 2.x · Advanced Security"
    assert certification.profile_of("C01", "Authorization", "ocpp2.0.1") == "OCPP 2.x · Core"
    assert certification.profile_of("RESERVE16", "Reservation (1.6)", "ocpp1.6") == "OCPP 1.6 · Reservation"
    assert certification.profile_of("CONN", "Connection", "ocpp1.6") == "OCPP 1.6 · Core"
    assert certification.profile_of("OCPI_SESSIONS_PULL", "Sessions", "ocpi2.2.1") == "OCPI 2.2.1 · sessions"


def test_listings_name_their_cases():
    assert certification.listing_of("TC_K_30_CSMS").address("TC_K_30_CSMS").endswith("2.0.1/K/test_tc_k_30_csms.py")
    assert certification.listing_of("TC_023_CS") is None   # the 1.6 station list names its variants: TC_023_4_CS
    assert certification.listing_of("TC_023_4_CS").name == "EVtivity 1.6 charge point list"
