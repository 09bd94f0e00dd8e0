"""A load process starts lean: what only a test run needs stays out of it (bench/LEAN.md has the megabytes)."""

import json
import subprocess
import sys

# faker's locale tables (~13 MB), jsonschema with its registry (~8 MB, wanted only for an invalid payload or
# a profile check), the OCPI side and cryptography with OpenSSL's bindings (~7-15 MB, for certificates and signed
# meter values): none of them is used by a simulated station or the roster.
KEPT_OUT = ("faker", "jsonschema", "referencing", "harness.ocpi", "starlette", "httpx", "cryptography")


def test_the_load_client_imports_neither_faker_nor_jsonschema_nor_the_ocpi_side():
    probe = ("import json, sys, harness.load.__main__, harness.load.station, harness.load.roster; "
             "from harness.ocpp.versions import OcppVersion; "
             "[harness.load.station.station_class(v) for v in OcppVersion]; "
             "print(json.dumps(sorted(sys.modules)))")
    loaded = json.loads(subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True,
                                       text=True, timeout=120).stdout)
    found = sorted(m for m in loaded if any(m == out or m.startswith(f"{out}.") for out in KEPT_OUT))
    assert found == [], f"the load client imports {found}: import them where they are used, not at module level"


def test_an_invalid_payload_is_still_named_field_by_field_without_the_import_at_start():
    """jsonschema is imported on the slow path only, and still names the field."""
    from harness.ocpp import schemas
    from harness.ocpp.versions import OcppVersion
    violations = schemas.validate(OcppVersion.V201, "Heartbeat", "response", {"currentTime": 5})
    assert [v.path for v in violations] == ["currentTime"]


def test_a_certificate_is_still_handled_once_the_lazy_import_runs():
    """The blocks' PKI modules load on first use, in a fresh process as in a run: a CSR is made and parsed."""
    probe = ("import sys; from harness.reference.blocks import certificates as c; "
             "assert 'cryptography' not in sys.modules; "
             "key = c.pki.new_key(c.pki.EC); csr = c.pki.make_csr(key, 'SN-1', 'Operator'); "
             "assert c.pki.csr_problem(csr) is None, c.pki.csr_problem(csr); "
             "import harness.pki; assert harness.pki.new_key is c.pki.new_key; print('cryptography' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["True"], out.stderr
