"""The fuzzer: the references, each run on its own as a SUT, sent mutated OCPP frames and OCPI requests,
every answer judged against the code or status the specification names for what was sent
(``python -m harness.fuzz``; bench/FUZZ.md)."""
