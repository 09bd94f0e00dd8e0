"""Load mode: many simulated stations against one CSMS, measured (``python -m harness.load``).

Each simulated station is the reference station (``harness.reference``) with an identity drawn from a
seeded roster (``roster``), run to a plan of activities at configurable rates (``mix``) by a runner
(``station``); a ``fleet`` ramps them in one process, Locust's workers in several (``locustfile``).
Round trips are measured on the wire (``wire``) into HDR histograms per action and time interval
(``recorder``), which Locust workers ship to the master; ``report`` writes them as JSON and a picture.
``csms`` serves the reference CSMS for a roster, the CSMS the load is measured against on this machine.

OCPI: ``ocpi`` plays many eMSP (or CPO) peers of a seeded roster (``ocpi_roster``) against one platform, a
registration storm then list pulls (or pushes) at a rate, over one keep-alive pool (``http1``); Locust's
HTTP users in ``ocpi_locustfile``; ``ocpi_platform`` serves the reference platform that keeps credentials per
party (``harness.reference.ocpi.parties``). ``gauges`` samples CPU and memory for every run.

The layer sits above the references and the transport, beside the arena: nothing below imports it.
"""
