"""What the forkserver of suite_runner.py does once, so that none of the runs it forks does it again.

A run is one pytest session of a few suite tests: its own work takes a tenth of a second, and the rest
was start-up that every run repeated. Imported first in the forkserver, this module

- imports every pytest plugin of the environment (pytest loads them through their entry points in
  each session: xdist, benchmark, anyio, faker...) and what their session fixtures import (faker's
  locale providers);
- compiles the report templates once (the Jinja environment keeps them);
- loads the CA bundle the harness's HTTP clients trust (`default_trust`), which every OCPI session used to load;
- imports hypothesis, which every session's end imports (its pytest plugin's terminal summary);
- loads the OCPI schemas (the first OCPI exchange of every run did: a fifth of an OCPI fault run's CPU, when
  it also meta-validated them; tests/unit/ocpi/test_ocpi_schemas.py does that now), and builds their validators.
"""

from importlib.metadata import entry_points

import faker
import hypothesis.internal.observability  # noqa: F401
import pytest  # noqa: F401

from harness import plugin, report  # noqa: F401
from harness.ocpi import schemas
from harness.transport.http import default_trust

for entry_point in entry_points(group="pytest11"):
    entry_point.load()
faker.Faker()   # what faker's autouse session fixture builds in every run
for template in ("conformance.md.j2", "conformance.html.j2"):
    report.templates().get_template(template)
default_trust()   # the CA bundle every OCPI session's HTTP client trusts (~60 ms to load)
for name in schemas.names():   # the schemas, loaded once, and each one's validator (they share a registry)
    schemas.validate(name, {})
