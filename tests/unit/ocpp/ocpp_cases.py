"""Cases shared by the schema and RPC tests: Authorize requests with one fault each, and the code owed."""

from harness.ocpp.versions import OcppVersion

V16, V201, V21 = OcppVersion.V16, OcppVersion.V201, OcppVersion.V21

# (version, Authorize request with one fault, the canonical CALLERROR code for it), worked out from the
# 1.6 / 2.x code tables: missing field -> occurrence, too long or not in the enum -> property,
# wrong JSON type -> type, unexpected property -> format (spelled per version).
AUTHORIZE_FAULTS = [
    (V16, {}, "OccurenceConstraintViolation"),
    (V16, {"idTag": "T" * 21}, "PropertyConstraintViolation"),
    (V16, {"idTag": 7}, "TypeConstraintViolation"),
    (V16, {"idTag": "T", "extra": 1}, "FormationViolation"),
    (V201, {}, "OccurrenceConstraintViolation"),
    (V201, {"idToken": {"idToken": "T", "type": "Bogus"}}, "PropertyConstraintViolation"),
    (V201, {"idToken": {"idToken": "T", "type": "ISO14443"}, "extra": 1}, "FormatViolation"),
    (V21, {"idToken": {"idToken": "T", "type": "ISO14443"}, "extra": 1}, "FormatViolation"),
]
