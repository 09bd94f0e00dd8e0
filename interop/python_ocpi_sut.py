"""python-ocpi (PyPI, "pyOCPI": an OCPI 2.2 REST interface on Flask-RESTX) under test as a CPO (its locations
module a SENDER) or an eMSP (a RECEIVER), with the thinnest HTTP actuator. Its blueprint
(``createOcpiBlueprint``) is served by werkzeug in this process with the managers it ships: ``CredentialsDictMan``
(its token store, a JSON file in a temporary folder) and its in-memory ``LocationManager``, holding the profile's
locations (the provisioning a CPO's database would hold).

    python interop/python_ocpi_sut.py cpo --port 8080 --actuator-port 8180 --profile profiles/interop-python-ocpi-cpo.toml
    python interop/python_ocpi_sut.py emsp --port 8090 --actuator-port 8190 --profile profiles/interop-python-ocpi-emsp.toml

Actions: issue_token_a (a token its credentials store accepts), push_location (its ``sendToModule``: a PUT of
the Location to every registered party's locations endpoint; a CPO's only). What it cannot do, answered 501:
register (it only answers a registration), update_credentials, unregister, the other pushes (its push builds
the URL of a whole Location only).
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import threading
from pathlib import Path

from common import Tasks, run

VERSIONS_PATH = "/ocpi/versions"


def location(profile: dict, spec: dict) -> dict:
    """A Location of the profile's [ocpi] locations, as a CPO's database would hold it (OCPI 2.2 fields)."""
    ocpi = profile["ocpi"]
    stamp = spec["last_updated"]
    return {
        "country_code": ocpi["country_code"], "party_id": ocpi["party_id"], "id": spec["id"], "publish": True,
        "name": spec["id"], "address": "Interopstraat 1", "city": "Arnhem", "postal_code": "6811AA",
        "country": "NLD", "coordinates": {"latitude": "51.985103", "longitude": "5.898730"},
        "time_zone": "Europe/Amsterdam", "last_updated": stamp,
        "evses": [{"uid": evse["uid"], "evse_id": f"NL*{ocpi['party_id']}*E{evse['uid']}", "status": "AVAILABLE",
                   "last_updated": stamp,
                   "connectors": [{"id": c, "standard": "IEC_62196_T2", "format": "SOCKET", "power_type": "AC_3_PHASE",
                                   "max_voltage": 230, "max_amperage": 16, "last_updated": stamp}
                                  for c in evse["connectors"]]}
                  for evse in spec.get("evses", [])],
    }


class PythonOcpi:
    def __init__(self, profile: dict):
        self.profile = profile
        self.cpo = profile["sut"]["role"] == "cpo"
        self.ACTIONS = ("issue_token_a", "push_location") if self.cpo else ("issue_token_a",)
        self.folder = Path(tempfile.mkdtemp(prefix="python-ocpi-"))
        self.tasks = Tasks("python-ocpi adapter")
        self.credentials = None
        self.locations = None

    async def run(self, port: int, stop: asyncio.Event) -> None:
        from flask import Flask
        from ocpi import createOcpiBlueprint
        from ocpi.managers import CredentialsDictMan, LocationManager
        from werkzeug.serving import make_server
        ocpi = self.profile["ocpi"]
        base = f"http://127.0.0.1:{port}/ocpi"
        roles = {"role": "CPO" if self.cpo else "EMSP", "party_id": ocpi["party_id"], "country_code": ocpi["country_code"],
                 "business_details": {"name": ocpi.get("business_name", "python-ocpi")}}
        self.credentials = CredentialsDictMan(roles, f"{base}/versions", filename=str(self.folder / "creds.json"))
        self.locations = LocationManager()
        for spec in ocpi.get("locations", []) if self.cpo else ():
            self.locations.locations[spec["id"]] = location(self.profile, spec)
        if ocpi.get("token_a"):
            self.credentials._updateToken(ocpi["token_a"], "", "")
        app = Flask("python-ocpi")
        app.register_blueprint(createOcpiBlueprint(base, {
            "credentials": {"role": "SENDER", "object": self.credentials},
            "locations": {"role": "SENDER" if self.cpo else "RECEIVER", "object": self.locations}}))
        server = make_server("127.0.0.1", port, app, threaded=True)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        print(f"versions URL: http://127.0.0.1:{port}{VERSIONS_PATH}", flush=True)
        try:
            await stop.wait()
        finally:
            server.shutdown()
            shutil.rmtree(self.folder, ignore_errors=True)

    # ---- actuator actions
    async def issue_token_a(self, token: str) -> None:
        self.credentials._updateToken(token, "", "")

    async def push_location(self, location_id: str) -> None:
        found = self.locations.locations.get(location_id)
        if found is None:
            raise LookupError(f"no location {location_id}")
        self.tasks.spawn(asyncio.to_thread(self.credentials.sendToModule, [found], "locations", "PUT"))


if __name__ == "__main__":
    run(PythonOcpi, __doc__)
