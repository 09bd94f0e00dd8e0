"""The functional blocks of the OCPP references, one module each; ``harness.reference.compose``
registers them and composes the reference of each version."""
