"""OCPP 1.6-J reference implementations: a central system and a charge point, on the same core
as 2.x (transport, RPC, framing, schemas, verdicts) with the 1.6-specific parts beside them:
the configuration store, the transaction-message queue and the meter-register rules."""

from harness.reference.v16.csms import ReferenceCsms16
from harness.reference.v16.station import ReferenceStation16

__all__ = ["ReferenceCsms16", "ReferenceStation16"]
