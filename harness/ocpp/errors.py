"""CALLERROR codes per OCPP version and how schema failures map onto them.

Rules (OCPP 1.6 JSON spec §4.2.3; OCPP 2.0.1/2.1 part 4 §4.3; shared/facts/ocpp-j.md):
- 1.6 and 2.x have different code sets: 1.6 says ``FormationViolation`` where 2.x says
  ``FormatViolation``; 2.x adds ``MessageTypeNotSupported`` and ``RpcFrameworkError``.
- The occurrence code has two spellings in the field (``OccurenceConstraintViolation`` in the
  1.6 and 2.0.1 texts, ``OccurrenceConstraintViolation`` in the 1.6 errata and the 2.0.1/2.1
  schemas). Both are accepted from a peer; we send the one canonical for the version.
- An unknown action is ``NotImplemented``; a recognised but unsupported one ``NotSupported``.
"""

from __future__ import annotations

from harness.ocpp.versions import OcppVersion

OCCURRENCE_SPELLINGS = frozenset({"OccurenceConstraintViolation", "OccurrenceConstraintViolation"})

_COMMON = frozenset({
    "NotImplemented", "NotSupported", "InternalError", "ProtocolError", "SecurityError",
    "PropertyConstraintViolation", "TypeConstraintViolation", "GenericError",
}) | OCCURRENCE_SPELLINGS

ERROR_CODES: dict[OcppVersion, frozenset[str]] = {
    OcppVersion.V16: _COMMON | {"FormationViolation"},
    OcppVersion.V201: _COMMON | {"FormatViolation", "MessageTypeNotSupported", "RpcFrameworkError"},
    OcppVersion.V21: _COMMON | {"FormatViolation", "MessageTypeNotSupported", "RpcFrameworkError"},
}

# What kind of problem a code names, so a verifier can accept every code that fits a fault.
FORMAT = "format"          # payload does not have the PDU's structure
OCCURRENCE = "occurrence"  # a required field missing, a list too long or too short
TYPE = "type"              # a field of the wrong JSON type
PROPERTY = "property"      # right type, value out of range, too long, not in the enum

# jsonschema keyword -> kind of violation it reveals.
KEYWORD_KIND = {
    "required": OCCURRENCE, "minItems": OCCURRENCE, "maxItems": OCCURRENCE,
    "type": TYPE,
    "maxLength": PROPERTY, "minLength": PROPERTY, "enum": PROPERTY, "pattern": PROPERTY,
    "minimum": PROPERTY, "maximum": PROPERTY, "exclusiveMinimum": PROPERTY,
    "exclusiveMaximum": PROPERTY, "multipleOf": PROPERTY, "format": PROPERTY,
    "additionalProperties": FORMAT,
}


def canonical_code(version: OcppVersion, kind: str) -> str:
    """The code this harness sends for a violation of ``kind``."""
    if kind == FORMAT:
        return "FormatViolation" if version.is_2x else "FormationViolation"
    if kind == OCCURRENCE:
        return "OccurrenceConstraintViolation" if version.is_2x else "OccurenceConstraintViolation"
    return {TYPE: "TypeConstraintViolation", PROPERTY: "PropertyConstraintViolation"}[kind]


def codes_for_payload_fault(version: OcppVersion) -> frozenset[str]:
    """Every code that is a defensible answer to a schema-invalid payload.

    Implementations in the field disagree (facts/ocpp-j.md: ProtocolError, Occurrence…,
    FormatViolation for the same missing field), so a verifier requires one of these and
    reports a code other than the canonical one only as a non-strict finding.
    """
    format_code = canonical_code(version, FORMAT)
    return frozenset({format_code, "ProtocolError", "TypeConstraintViolation",
                      "PropertyConstraintViolation"}) | OCCURRENCE_SPELLINGS


def is_known_code(version: OcppVersion, code: str) -> bool:
    return code in ERROR_CODES[version]
