"""EV-charging conformance harness: a pytest plugin for OCPP 1.6-J, 2.0.1, 2.1 and OCPI."""

__version__ = "0.1.0"
