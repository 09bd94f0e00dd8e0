"""What the forkserver of suite_runner.py does once, so that none of the runs it forks does it again.

A run is one pytest session of a few suite tests: its own work takes a tenth of a second, and the rest
was start-up that every run repeated. Imported first in the forkserver, this module

- writes byte code to the cache the project's other Python processes share (tests/conftest.py's
  ``python_env``), even where ``PYTHONDONTWRITEBYTECODE`` is set: otherwise every run compiled
  anew each module pytest rewrites (its plugins', the suite file's);
- imports every pytest plugin of the environment (pytest loads them through their entry points in
  each session: xdist, benchmark, anyio, faker...) and what their session fixtures import (faker's
  locale providers);
- compiles the report templates once (the Jinja environment keeps them);
- loads the CA bundle the harness's HTTP clients trust (`default_trust`), which every OCPI session used to load;
- imports hypothesis, which every session's end imports (its pytest plugin's terminal summary);
- loads and checks the OCPI schemas (the first OCPI exchange of every run did: a fifth of an OCPI fault
  run's CPU), and builds their validators.
"""

import sys
import tempfile
from importlib.metadata import entry_points
from pathlib import Path

sys.dont_write_bytecode = False
sys.pycache_prefix = str(Path(tempfile.gettempdir()) / "evse-conformance-pycache")   # python_env's

import faker  # noqa: E402  (after the byte-code settings: its modules are cached too)
import hypothesis.internal.observability  # noqa: E402, F401
import pytest  # noqa: E402, F401

from harness import plugin, report  # noqa: E402, F401
from harness.ocpi import schemas  # noqa: E402
from harness.transport.http import default_trust  # noqa: E402

for entry_point in entry_points(group="pytest11"):
    entry_point.load()
faker.Faker()   # what faker's autouse session fixture builds in every run
for template in ("conformance.md.j2", "conformance.html.j2"):
    report._TEMPLATES.get_template(template)
default_trust()   # the CA bundle every OCPI session's HTTP client trusts (~60 ms to load)
for name in schemas.names():   # the schemas, checked once, and each one's validator (they share a registry)
    schemas.validate(name, {})
