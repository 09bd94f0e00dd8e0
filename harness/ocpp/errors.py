"""CALLERROR codes per OCPP version and how schema failures map onto them.

Facts (spec 002 Errors; OCPP 2.0.1/2.1 part 4 §4.3; shared/facts/ocpp-j.md), judged by the rows of
``Errors`` below:
- 1.6 and 2.x have different code sets: 1.6 says ``FormationViolation`` where 2.x says
  ``FormatViolation``; 2.x adds ``MessageTypeNotSupported`` and ``RpcFrameworkError``.
- The occurrence code has two spellings in the field (``OccurenceConstraintViolation`` in the
  1.6 and 2.0.1 texts, ``OccurrenceConstraintViolation`` in the 1.6 errata and the 2.0.1/2.1
  schemas). Both are accepted from a peer; we send the one canonical for the version.
- An unknown action is ``NotImplemented``; a recognised but unsupported one ``NotSupported``.
- Implementations in the field name one fault with different codes (facts ocpp-j.md), so a code
  that fits the kind of fault is required and the version's own code for it only advised.
"""

from __future__ import annotations

from harness.ocpp.versions import OcppVersion
from harness.rules import RuleTable, must, should


class Errors(RuleTable, namespace="ocpp.errors"):
    """The CALLERROR codes a receiver answers with."""
    known = must("spec 002 Errors; OCPP 2.0.1 part 4 §4.3", "a CALLERROR code is one of the version's codes "
                 "(either spelling of the occurrence code)")
    fits = must("spec 002 Errors; OCPP 2.0.1 part 4 §4.3",
                "a refused CALL's code names a fault of its kind: a payload code for a payload that breaks its "
                "schema, NotImplemented or NotSupported for an action the receiver does not know")
    exact = should("spec 002 Errors; OCPP 2.0.1 part 4 §4.3",
                   "the code is one the version's text gives the fault (CODE_TABLE): occurrence, type or property "
                   "constraint violation, FormationViolation (1.6) or FormatViolation (2.x), ProtocolError where "
                   "the version's text words it for the fault, NotImplemented")

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
FORMAT = "format"          # payload does not have the PDU's structure (a property it does not define)
OCCURRENCE = "occurrence"  # a required field missing, a list too long or too short
TYPE = "type"              # a field of the wrong JSON type
PROPERTY = "property"      # right type, value out of range, too long, not in the enum
FRAME = "frame"            # a CALL frame whose elements have the wrong types (a payload that is no object)
UNKNOWN_ACTION = "unknown action"   # an action the receiver does not know
NOT_A_FRAME = "not a frame"         # text that is no frame, or has no usable message id
UNKNOWN_TYPE = "unknown message type"   # a frame whose message type number the version does not define

# The codes each version's text names a kind of fault with (spec 002 Errors; OCPP 2.0.1/2.1 part 4 §4.3),
# the one this harness sends first. The texts word some codes differently, and the table follows them:
# 1.6 ProtocolError is "payload incomplete" (a missing field, like the occurrence code); 2.x ProtocolError
# is "payload not conform the PDU structure" (a property the PDU lacks, a payload that is no object, like
# FormatViolation, "syntactically incorrect"); 1.6 FormationViolation covers both. Where the texts agree the
# codes, and so the level of the row that judges them (Errors.exact, a SHOULD), are the same in every version.
# The occurrence code is given as the texts spell it; either spelling is accepted (OCCURRENCE_SPELLINGS).
# 1.6 has no code for text that is no frame: ().
#                  1.6                                                2.0.1 and 2.1
CODE_TABLE: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    FORMAT:         (("FormationViolation",),                          ("FormatViolation", "ProtocolError")),
    FRAME:          (("FormationViolation",),                          ("FormatViolation", "ProtocolError")),
    OCCURRENCE:     (("OccurenceConstraintViolation", "ProtocolError"), ("OccurrenceConstraintViolation",)),
    TYPE:           (("TypeConstraintViolation",),                     ("TypeConstraintViolation",)),
    PROPERTY:       (("PropertyConstraintViolation",),                 ("PropertyConstraintViolation",)),
    UNKNOWN_ACTION: (("NotImplemented",),                              ("NotImplemented",)),
    NOT_A_FRAME:    ((),                                               ("RpcFrameworkError",)),
    UNKNOWN_TYPE:   ((),                                               ("MessageTypeNotSupported",)),
}

# jsonschema keyword -> kind of violation it reveals.
KEYWORD_KIND = {
    "required": OCCURRENCE, "minItems": OCCURRENCE, "maxItems": OCCURRENCE,
    "type": TYPE,
    "maxLength": PROPERTY, "minLength": PROPERTY, "enum": PROPERTY, "pattern": PROPERTY,
    "minimum": PROPERTY, "maximum": PROPERTY, "exclusiveMinimum": PROPERTY,
    "exclusiveMaximum": PROPERTY, "multipleOf": PROPERTY, "format": PROPERTY,
    "additionalProperties": FORMAT,
}


def table_codes(version: OcppVersion, kind: str) -> tuple[str, ...]:
    """The codes the version's text gives a fault of ``kind``, ours first (empty: the version names none)."""
    return CODE_TABLE[kind][version.is_2x]


def table_code(version: OcppVersion, kind: str) -> str | None:
    """The code this harness reads first in the version's text for a fault of ``kind`` (None: it names none)."""
    return next(iter(table_codes(version, kind)), None)


def canonical_code(version: OcppVersion, kind: str) -> str:
    """The code this harness sends for a violation of ``kind`` (1.6 text without a frame: FormationViolation)."""
    return table_code(version, kind) or table_codes(version, FORMAT)[0]


def exact_codes(version: OcppVersion, kind: str) -> frozenset[str]:
    """The codes that name a fault of ``kind`` exactly (Errors.exact): the table's, the occurrence code in
    either spelling."""
    codes = frozenset(table_codes(version, kind))
    return codes | OCCURRENCE_SPELLINGS if codes & OCCURRENCE_SPELLINGS else codes


def codes_for_payload_fault(version: OcppVersion) -> frozenset[str]:
    """Every code that is a defensible answer to a schema-invalid payload.

    Implementations in the field disagree (facts/ocpp-j.md: ProtocolError, Occurrence…,
    FormatViolation for the same missing field), so a verifier requires one of these and
    reports a code other than the canonical one only as a non-strict finding.
    """
    format_code = canonical_code(version, FORMAT)
    return frozenset({format_code, "ProtocolError", "TypeConstraintViolation",
                      "PropertyConstraintViolation"}) | OCCURRENCE_SPELLINGS


def fitting_codes(version: OcppVersion, kind: str) -> frozenset[str]:
    """Every code a correct receiver may answer a fault of ``kind`` with (Errors.fits).

    An unknown action: NotImplemented, or NotSupported (the action may be known to it but not
    supported). A payload fault: any payload code. A CALL whose payload is no object: a payload
    code, or in 2.x RpcFrameworkError (the CALL is no valid RPC request). Text that is no frame, a
    message type the version lacks: any code of the version.
    """
    if kind == UNKNOWN_ACTION:
        return frozenset({"NotImplemented", "NotSupported"})
    if kind in (NOT_A_FRAME, UNKNOWN_TYPE):
        return ERROR_CODES[version]
    if kind == FRAME and version.is_2x:
        return codes_for_payload_fault(version) | {"RpcFrameworkError"}
    return codes_for_payload_fault(version)


def is_known_code(version: OcppVersion, code: str) -> bool:
    return code in ERROR_CODES[version]
