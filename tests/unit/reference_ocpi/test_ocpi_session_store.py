"""The sessions core's store and status table, and the reference peer's Session test data and
charging-preferences policy: worked through by hand on one small Session."""

import copy

import pytest

from harness.ocpi import schemas
from harness.ocpi.envelope import StatusCode, StatusError
from harness.ocpi.sessions import (
    ACTIVE, COMPLETED, INVALID, NA, PENDING, RESERVATION, SessionRules, SessionStore, repeated_periods,
    transition_problem, unchanged_fields)
from harness.reference.ocpi.locations import sample_locations
from harness.reference.ocpi.sessions import _fake, build_session, cdr_token, preferences_answer, sample_sessions

T0 = "2024-03-01T09:00:00Z"
PERIOD = {"start_date_time": T0, "dimensions": [{"type": "ENERGY", "volume": 2.0}]}


def session(status: str = ACTIVE, place=("LOC-1", "E1", "1")) -> dict:
    fake = _fake()
    return build_session(fake, ("NL", "CPO"), "Ses-1", status, cdr_token(fake, "NL", "EMS"), place, T0)


def store(status: str = ACTIVE) -> SessionStore:
    return SessionStore([session(status)])


def refused(call) -> StatusError:
    with pytest.raises(StatusError) as error:
        call()
    return error.value


def test_built_and_sample_sessions_are_valid_and_ordered():
    sessions = sample_sessions(("NL", "REF"), sample_locations("NL", "REF", 2))
    for item in [session(), *sessions]:
        assert schemas.validate("session", item) == []
    stamps = [item["last_updated"] for item in sessions]
    assert stamps == sorted(set(stamps))
    assert sample_sessions(("NL", "REF"), sample_locations("NL", "REF", 2)) == sessions   # seeded


def test_status_table():
    assert transition_problem(PENDING, ACTIVE) is None
    assert transition_problem(RESERVATION, COMPLETED) is None
    assert transition_problem(ACTIVE, INVALID) is None
    assert transition_problem(ACTIVE, PENDING) and transition_problem(ACTIVE, RESERVATION)
    assert transition_problem(COMPLETED, ACTIVE)


def test_patch_appends_periods_and_keeps_the_rest():
    sessions = store()
    sessions.patch("nl", "cpo", "SES-1", {"kwh": 2.0, "charging_periods": [PERIOD], "last_updated": T0})
    held = sessions.patch("NL", "CPO", "ses-1", {"charging_periods": [PERIOD], "last_updated": T0})
    assert held["charging_periods"] == [PERIOD, PERIOD] and held["kwh"] == 2.0 and held["id"] == "Ses-1"


def test_put_replaces_periods():
    sessions = store()
    sessions.patch("NL", "CPO", "Ses-1", {"charging_periods": [PERIOD], "last_updated": T0})
    assert not sessions.put("NL", "CPO", "Ses-1", session())
    assert sessions.get("NL", "CPO", "Ses-1")["charging_periods"] == []


@pytest.mark.parametrize("changes, rule", [
    ({"kwh": 1.0}, SessionRules.patch_last_updated),
    ({"status": PENDING, "last_updated": T0}, SessionRules.transitions),
    ({"id": "Other", "last_updated": T0}, SessionRules.put_ids),
])
def test_patch_refusals_are_2001(changes, rule):
    error = refused(lambda: store().patch("NL", "CPO", "Ses-1", changes))
    assert (error.rule, error.status_code) == (rule, StatusCode.INVALID_PARAMETERS)


def test_completed_is_final_and_unknown_is_404():
    assert refused(lambda: store(COMPLETED).patch("NL", "CPO", "Ses-1", {"kwh": 9.0, "last_updated": T0})).rule \
        == SessionRules.final
    error = refused(lambda: store().patch("NL", "CPO", "Nope", {"kwh": 1.0, "last_updated": T0}))
    assert (error.rule, error.http_status) == (SessionRules.pushed, 404)


def test_na_only_in_a_reservation():
    reserved = SessionStore()
    assert reserved.put("NL", "CPO", "Ses-1", session(RESERVATION, ("LOC-1", NA, NA)))
    assert refused(lambda: reserved.patch("NL", "CPO", "Ses-1", {"status": ACTIVE, "last_updated": T0})).rule \
        == SessionRules.na_only_reservation


def test_put_ids_must_match_the_url():
    assert refused(lambda: SessionStore().put("NL", "XXX", "Ses-1", session())).rule == SessionRules.put_ids


def test_patch_judgements():
    held = {**session(), "charging_periods": [PERIOD]}
    assert unchanged_fields(held, {"currency": "EUR", "kwh": 3.0, "last_updated": T0, "id": "Ses-1"}) == ["currency"]
    assert repeated_periods(held, {"charging_periods": [PERIOD, {**PERIOD, "start_date_time": "x"}]}) == [PERIOD]


@pytest.mark.parametrize("preferences, status, answer", [
    ({"profile_type": "FAST"}, ACTIVE, "ACCEPTED"),
    ({"profile_type": "FAST"}, COMPLETED, "NOT_POSSIBLE"),
    ({"profile_type": "GREEN"}, ACTIVE, "PROFILE_TYPE_NOT_SUPPORTED"),
    ({"profile_type": "CHEAP"}, ACTIVE, "DEPARTURE_REQUIRED"),
    ({"profile_type": "CHEAP", "departure_time": "2999-01-01T00:00:00Z"}, ACTIVE, "ENERGY_NEED_REQUIRED"),
    ({"profile_type": "CHEAP", "departure_time": "2000-01-01T00:00:00Z", "energy_need": 5}, ACTIVE, "NOT_POSSIBLE"),
])
def test_reference_preferences_policy(preferences, status, answer):
    assert preferences_answer(copy.deepcopy({**session(), "status": status}), preferences) == answer


def test_a_null_member_is_kept_as_absent():
    """A Session PUT with charging_periods and meter_id null (spec 000: a null member counts as absent)
    takes a PATCH's periods as the first ones; before, the append met the null and the handler broke."""
    sessions = SessionStore()
    sessions.put("NL", "CPO", "Ses-1", {**session(), "charging_periods": None, "meter_id": None})
    held = sessions.patch("NL", "CPO", "Ses-1", {"charging_periods": [{**PERIOD, "tariff_id": None}],
                                                 "last_updated": T0})
    assert held["charging_periods"] == [PERIOD] and "meter_id" not in held


def test_sample_data_is_drawn_once_and_each_caller_gets_its_own_copy():
    """The samples are drawn once per arguments (faker is slow): what one caller changes, the next never sees, and
    what is handed out is what a fresh draw gives."""
    locations = sample_locations("NL", "REF", 2)
    first = sample_sessions(("NL", "REF"), locations)
    fresh = sample_sessions.__wrapped__(("NL", "REF"), locations)
    assert first == fresh
    first[0]["cdr_token"]["uid"] = "CHANGED"
    first.append({})
    assert sample_sessions(("NL", "REF"), sample_locations("NL", "REF", 2)) == fresh


def test_json_copy_copies_json_and_deep_copies_the_rest():
    from datetime import datetime

    from harness.ocpi.envelope import json_copy

    stamp = datetime(2024, 3, 1)
    value = {"a": [1, 2.5, "x", None, True, {"b": []}], "t": (1, [2]), "d": stamp}
    copied = json_copy(value)
    assert copied == value and copied is not value
    assert copied["a"] is not value["a"] and copied["a"][5]["b"] is not value["a"][5]["b"]
    assert copied["t"][1] is not value["t"][1]   # a tuple goes through deepcopy, its list copied too
    assert copied["d"] == stamp and copied["d"] is not stamp
    shared = {"excl_vat": 1.0}
    twice = json_copy({"total_cost": shared, "total_energy_cost": shared, "ids": [shared]})
    assert twice["total_cost"] is not twice["total_energy_cost"] and twice["ids"][0] is not shared   # no aliasing


def test_an_own_faker_draws_what_a_new_seeded_faker_draws_whatever_else_draws_between():
    """A handler's faker is the shared instance drawing from a generator of its own: the same values, in the same
    order, as a Faker of its own seeded alike, while another own faker and the seeded shared one draw in between."""
    from faker import Faker

    from harness.reference.ocpi.locations import own_faker, seeded_faker

    def draws(fake, other=None):
        values = []
        for n in range(4):
            values += [fake.bothify("??##"), fake.numerify("####"), fake.hexify("^^^^", upper=True),
                       fake.random_int(0, 10 ** 6), fake.pyfloat(min_value=4, max_value=60, right_digits=2),
                       fake.company(), fake.random_element(("A", "B", "C")), fake.random.random()]
            if other is not None:
                other.bothify("??##")
                seeded_faker(n).company()
        return values

    new = Faker()
    new.seed_instance(1313)
    assert draws(own_faker(1313), other=own_faker(1313)) == draws(new)
    assert own_faker(7).random_int(0, 10 ** 9) != own_faker(8).random_int(0, 10 ** 9)


def test_stores_are_made_when_first_used_from_the_stock_of_their_module():
    """A peer's module store is made, with its stock, at its first read; a store given at once is kept as it is."""
    from harness.reference.ocpi.handler import Later, ModuleHandler

    made = []
    handler = ModuleHandler(None, Later(lambda: made.append("store") or {"kept": True}))
    assert made == []
    assert handler.store == {"kept": True} and handler.store is handler.store and made == ["store"]
    assert ModuleHandler(None, "given").store == "given"
