"""CALLERROR codes per version (harness/ocpp/errors.py) and where blame lives (harness/errors.py)."""

from __future__ import annotations

import pytest

from harness.errors import ConfigError, HarnessError, PeerViolation
from harness.ocpp.errors import (
    CODE_TABLE, ERROR_CODES, FORMAT, FRAME, KEYWORD_KIND, NOT_A_FRAME, OCCURRENCE, OCCURRENCE_SPELLINGS, PROPERTY,
    TYPE, UNKNOWN_ACTION, canonical_code, codes_for_payload_fault, exact_codes, fitting_codes, is_known_code,
)
from harness.ocpp.rpc import Rpc
from harness.ocpp.versions import OcppVersion

V16, V201, V21 = OcppVersion.V16, OcppVersion.V201, OcppVersion.V21

# The tables of OCPP-J 1.6 §4.2.3 and 2.0.1/2.1 part 4 §4.3, with both occurrence spellings.
CODES_16 = {
    "NotImplemented", "NotSupported", "InternalError", "ProtocolError", "SecurityError", "FormationViolation",
    "PropertyConstraintViolation", "OccurenceConstraintViolation", "OccurrenceConstraintViolation",
    "TypeConstraintViolation", "GenericError",
}
CODES_2X = {
    "FormatViolation", "GenericError", "InternalError", "MessageTypeNotSupported", "NotImplemented",
    "NotSupported", "OccurrenceConstraintViolation", "OccurenceConstraintViolation",
    "PropertyConstraintViolation", "ProtocolError", "RpcFrameworkError", "SecurityError",
    "TypeConstraintViolation",
}


@pytest.mark.parametrize("version, codes", [(V16, CODES_16), (V201, CODES_2X), (V21, CODES_2X)])
def test_each_version_has_exactly_its_code_table(version, codes):
    """Codes: 1.6 has 10 codes, 2.x has 12; each table also accepts the other occurrence spelling."""
    assert ERROR_CODES[version] == codes


@pytest.mark.parametrize("code, in_16, in_2x", [
    ("FormationViolation", True, False),
    ("FormatViolation", False, True),
    ("RpcFrameworkError", False, True),
    ("MessageTypeNotSupported", False, True),
    ("NotImplemented", True, True),
    ("GenericError", True, True),
    ("Timeout", False, False),
    ("formatviolation", False, False),
])
def test_version_specific_codes_are_known_only_in_their_version(code, in_16, in_2x):
    """Codes: 1.6 says FormationViolation, 2.x FormatViolation and adds RpcFrameworkError, MessageTypeNotSupported."""
    assert is_known_code(V16, code) is in_16
    assert is_known_code(V201, code) is in_2x
    assert is_known_code(V21, code) is in_2x


@pytest.mark.parametrize("version", list(OcppVersion))
@pytest.mark.parametrize("spelling", ["OccurenceConstraintViolation", "OccurrenceConstraintViolation"])
def test_both_occurrence_spellings_are_accepted_in_every_version(version, spelling):
    """Codes: the texts spell it Occurence, the errata Occurrence; a peer may use either."""
    assert is_known_code(version, spelling)
    assert spelling in OCCURRENCE_SPELLINGS


@pytest.mark.parametrize("version, kind, code", [
    (V16, FORMAT, "FormationViolation"),
    (V201, FORMAT, "FormatViolation"),
    (V21, FORMAT, "FormatViolation"),
    (V16, OCCURRENCE, "OccurenceConstraintViolation"),
    (V201, OCCURRENCE, "OccurrenceConstraintViolation"),
    (V21, OCCURRENCE, "OccurrenceConstraintViolation"),
    (V16, TYPE, "TypeConstraintViolation"),
    (V201, TYPE, "TypeConstraintViolation"),
    (V16, PROPERTY, "PropertyConstraintViolation"),
    (V21, PROPERTY, "PropertyConstraintViolation"),
    (V16, FRAME, "FormationViolation"),
    (V201, FRAME, "FormatViolation"),
    (V16, UNKNOWN_ACTION, "NotImplemented"),
    (V21, UNKNOWN_ACTION, "NotImplemented"),
    (V201, NOT_A_FRAME, "RpcFrameworkError"),
    (V16, NOT_A_FRAME, "FormationViolation"),   # 1.6 names no code for it: the format code
])
def test_canonical_code_per_version_and_kind(version, kind, code):
    """Codes: we send one code per kind of fault, spelled as the version spells it, and it is a code of it."""
    assert canonical_code(version, kind) == code
    assert is_known_code(version, code)


@pytest.mark.parametrize("version", list(OcppVersion))
def test_every_code_of_the_table_is_a_code_of_its_version(version):
    """Codes: the table names each kind of fault with a code of the version (1.6 has none for text that is no frame)."""
    for kind, (codes_16, codes_2x) in CODE_TABLE.items():
        for code in codes_2x if version.is_2x else codes_16:
            assert is_known_code(version, code), (kind, code)
        assert exact_codes(version, kind) <= fitting_codes(version, kind), kind
    assert exact_codes(OcppVersion.V16, NOT_A_FRAME) == frozenset()


@pytest.mark.parametrize("version", list(OcppVersion))
def test_either_occurrence_spelling_names_a_missing_field_exactly(version):
    assert OCCURRENCE_SPELLINGS <= exact_codes(version, OCCURRENCE)


@pytest.mark.parametrize("version, kind, exact", [
    (V16, OCCURRENCE, True), (V201, OCCURRENCE, False),   # 1.6: "payload incomplete"; 2.x: "not conform the PDU"
    (V16, FORMAT, False), (V21, FORMAT, True), (V201, FRAME, True),
])
def test_protocol_error_is_exact_where_the_versions_text_words_it_for_the_fault(version, kind, exact):
    """Severity from the text: ProtocolError names a missing field in 1.6 and a payload that does not conform
    to the PDU in 2.x; elsewhere it fits the fault (a payload code) but is not the version's word for it."""
    assert ("ProtocolError" in exact_codes(version, kind)) is exact
    assert "ProtocolError" in fitting_codes(version, kind)


@pytest.mark.parametrize("version, kind, extra, missing", [
    (V16, UNKNOWN_ACTION, {"NotImplemented", "NotSupported"}, {"ProtocolError"}),
    (V201, UNKNOWN_ACTION, {"NotSupported"}, {"InternalError"}),
    (V201, FRAME, {"RpcFrameworkError", "FormatViolation"}, {"NotImplemented"}),
    (V16, FRAME, {"FormationViolation"}, {"RpcFrameworkError"}),
    (V21, FORMAT, {"ProtocolError"}, {"RpcFrameworkError"}),
    (V21, NOT_A_FRAME, {"GenericError", "RpcFrameworkError"}, {"FormationViolation"}),
])
def test_codes_that_fit_a_kind_of_fault(version, kind, extra, missing):
    """Codes: an unknown action may be NotSupported; a CALL that is no valid RPC request may get
    RpcFrameworkError in 2.x."""
    assert extra <= fitting_codes(version, kind) and not missing & fitting_codes(version, kind)


@pytest.mark.parametrize("version, format_code", [
    (V16, "FormationViolation"), (V201, "FormatViolation"), (V21, "FormatViolation"),
])
def test_codes_accepted_for_a_payload_fault(version, format_code):
    """Codes: any of the codes implementations use for a schema-invalid payload, in the version's spelling."""
    assert codes_for_payload_fault(version) == {
        format_code, "ProtocolError", "TypeConstraintViolation", "PropertyConstraintViolation",
        "OccurenceConstraintViolation", "OccurrenceConstraintViolation",
    }
    assert codes_for_payload_fault(version) <= ERROR_CODES[version]


@pytest.mark.parametrize("keyword, kind", [
    ("required", OCCURRENCE), ("minItems", OCCURRENCE), ("maxItems", OCCURRENCE),
    ("type", TYPE),
    ("maxLength", PROPERTY), ("enum", PROPERTY), ("multipleOf", PROPERTY), ("minimum", PROPERTY),
    ("additionalProperties", FORMAT),
])
def test_schema_keywords_map_to_kinds(keyword, kind):
    """Codes: a missing field is an occurrence fault, a wrong type a type fault, a bad value a property fault."""
    assert KEYWORD_KIND[keyword] == kind


# ----------------------------------------------------------------------------- blame
def test_peer_violation_is_an_assertion_error_with_rule_expected_and_actual():
    """Blame: a peer's fault fails the test (AssertionError) and its text names rule, expected and actual."""
    error = PeerViolation(Rpc.matches, "answer to no CALL of ours", expected="abc", actual="xyz")
    assert isinstance(error, AssertionError)
    assert error.strict is True
    assert str(error) == "[rpc.matches] answer to no CALL of ours\n  expected: 'abc'\n  actual:   'xyz'"


def test_peer_violation_without_expected_or_actual_is_one_line():
    """Blame: a SHOULD-level finding is marked non-strict (by its row, in the version); one line without values."""
    error = PeerViolation(Rpc.one_at_a_time, "pipelined", protocol="ocpp1.6")
    assert error.strict is False
    assert PeerViolation(Rpc.one_at_a_time, "pipelined", protocol="ocpp2.0.1").strict is True
    assert str(error) == "[rpc.one_at_a_time] pipelined"


def test_harness_errors_are_not_blamed_on_the_peer():
    """Blame: our own failures (and config errors) are never PeerViolations, so never a failed verdict."""
    assert issubclass(ConfigError, HarnessError)
    assert not issubclass(HarnessError, AssertionError)
