"""The wire meter on made-up frames and times; the roster it measures."""

import pytest

pytest.importorskip("hdrh", reason="the load mode's dependencies are the [load] extra: pip install -e \".[test,load]\"")

from harness.load.recorder import Recorder
from harness.load.roster import Roster
from harness.load.wire import WireMeter
from harness.ocpp.versions import OcppVersion


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def meter():
    recorder, clock = Recorder(interval=1), Clock()
    return WireMeter(recorder, clock), recorder, clock


def test_a_round_trip_runs_from_the_call_leaving_to_its_answer_arriving():
    wire, recorder, clock = meter()
    wire.sent("CS-1", '[2,"a1","Heartbeat",{}]')
    clock.now += 0.012
    wire.received("CS-1", '[3, "a1", {"currentTime": "2024-01-01T00:00:00Z"}]')
    actions = recorder.report({})["actions"]
    assert actions["Heartbeat"]["count"] == 1 and abs(actions["Heartbeat"]["p50_ms"] - 12) < 0.2
    assert recorder.report({})["errors"] == {}


def test_a_callerror_is_a_round_trip_and_an_error_named_by_its_code():
    wire, recorder, clock = meter()
    wire.sent("CS-1", '[2,"b1","Authorize",{"idToken":{"idToken":"AA","type":"ISO14443"}}]')
    wire.received("CS-1", '[4,"b1","InternalError","boom",{}]')
    report = recorder.report({})
    assert report["actions"]["Authorize"]["count"] == 1
    assert report["errors"] == {"CALLERROR InternalError to Authorize": 1}


def test_a_new_call_while_one_is_pending_means_the_pending_one_went_unanswered():
    wire, recorder, clock = meter()
    wire.sent("CS-1", '[2,"c1","Heartbeat",{}]')
    clock.now += 30
    wire.sent("CS-1", '[2,"c2","Heartbeat",{}]')
    wire.received("CS-1", '[3,"c1",{"currentTime":"2024-01-01T00:00:00Z"}]')   # too late: c1 timed out
    wire.received("CS-1", '[3,"c2",{"currentTime":"2024-01-01T00:00:00Z"}]')
    report = recorder.report({})
    assert report["errors"] == {"no answer to Heartbeat": 1}
    assert report["actions"]["Heartbeat"]["count"] == 1


def test_stations_are_measured_apart_and_the_csms_own_calls_are_not_measured():
    wire, recorder, clock = meter()
    wire.sent("CS-1", '[2,"d1","Heartbeat",{}]')
    wire.sent("CS-2", '[2,"d2","BootNotification",{}]')
    wire.received("CS-2", '[2,"csms-1","Reset",{"type":"Immediate"}]')     # the CSMS asks
    wire.sent("CS-2", '[3,"csms-1",{"status":"Accepted"}]')                 # the station answers
    wire.received("CS-1", '[3,"d2",{}]')                                    # not CS-1's CALL
    wire.received("CS-2", '[3,"d2",{"status":"Accepted","interval":300,"currentTime":"2024-01-01T00:00:00Z"}]')
    assert list(recorder.report({})["actions"]) == ["BootNotification"]


def test_a_call_pending_when_the_load_closes_the_connection_is_no_error():
    wire, recorder, clock = meter()
    wire.sent("CS-1", '[2,"e1","Heartbeat",{}]')
    wire.unanswered("CS-1", count=False)
    wire.sent("CS-2", '[2,"e2","Heartbeat",{}]')
    wire.unanswered("CS-2")                           # the CSMS closed it
    assert recorder.report({})["errors"] == {"no answer to Heartbeat": 1}


def test_a_roster_is_the_same_for_the_same_seed_and_unique_within():
    first, again, other = Roster(7, 300), Roster(7, 300), Roster(8, 300)
    assert first.cards == again.cards and first.cards != other.cards
    for field in ("identity", "serial", "id_token", "password"):
        assert len({getattr(c, field) for c in first.cards}) == 300
    card = first[42]
    assert first.get(card.identity) is card and first.get("CS-NONE-00000") is None
    assert len(card.identity) <= 48 and len(card.serial) <= 25 and len(card.id_token) <= 20
    assert len(card.basic_auth(OcppVersion.V16)) == 20 and card.basic_auth(OcppVersion.V201) == card.password
    lines = first.csv().splitlines()
    assert lines[0] == "identity,password,authorization_key_16,serial_number,id_token" and len(lines) == 301
