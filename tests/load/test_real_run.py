"""A small real run: simulated stations against the reference CSMS on loopback, a few seconds each."""

import json

import pytest

pytest.importorskip("hdrh", reason="the load mode's dependencies are the [load] extra: pip install -e \".[test,load]\"")

from harness.load import report
from harness.load.csms import roster_csms
from harness.load.fleet import Fleet, LoadSettings
from harness.load.mix import Mix
from harness.load.recorder import Recorder
from harness.load.roster import Roster
from harness.ocpp.versions import OcppVersion

BUSY = Mix(heartbeat=0.5, authorize_per_hour=3600, transactions_per_hour=3600, transaction_seconds=1.5,
           meter_interval=0.5)   # 1.6 keeps whole seconds: it beats and samples every second


async def run(version, *, stations, csms_seed=1, hold=2.5, mix=BUSY):
    csms = await roster_csms(version, Roster(csms_seed, stations), call_timeout=5).start()
    settings = LoadSettings(url=csms.url, stations=stations, version=version, mix=mix, ramp=40, hold=hold,
                            seed=1, call_timeout=5, interval=1)
    recorder = Recorder(settings.interval)
    try:
        await Fleet(settings, recorder).run(progress=None)
    finally:
        await csms.stop()
    return recorder.report(settings.describe()), csms


@pytest.mark.parametrize("version, transaction_messages", [
    (OcppVersion.V201, {"TransactionEvent"}),
    (OcppVersion.V16, {"StartTransaction", "StopTransaction", "MeterValues"}),
])
async def test_every_station_connects_boots_and_keeps_to_its_mix(version, transaction_messages, tmp_path):
    written, csms = await run(version, stations=20)
    assert written["errors"] == {}
    assert written["summary"]["connections_held"]["peak"] == 20
    assert set(csms.sessions) == {card.identity for card in Roster(1, 20).cards}
    actions = written["actions"]
    assert actions["connect"]["count"] == actions["BootNotification"]["count"] == 20
    assert actions["StatusNotification"]["count"] >= 20 * (1 if version.is_2x else 2)   # a connector (1.6: and 0)
    assert {"Heartbeat", "Authorize"} <= set(actions) and transaction_messages <= set(actions)
    assert written["processes"]["local"]["rss_mb_peak"] > 0
    data, picture = report.write(written, tmp_path)
    assert json.loads(data.read_text()) == json.loads(json.dumps(written))
    assert picture.read_bytes().startswith(b"\x89PNG")


async def test_stations_the_csms_does_not_know_are_refused_and_counted():
    written, _ = await run(OcppVersion.V201, stations=3, csms_seed=2, hold=0.2, mix=Mix(heartbeat=1))
    assert written["errors"] == {"connect refused: HTTP 404": 3}
    assert written["summary"]["connections_held"]["peak"] == 0
