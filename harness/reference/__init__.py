"""Reference implementations: a CSMS, a charging station (and an OCPI peer). Each plays the
harness's side of a test, and each can stand in as the SUT for self-conformance runs."""
