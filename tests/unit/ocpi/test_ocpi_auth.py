import pytest

from harness.errors import HarnessError
from harness.ocpi.auth import (
    AuthRules, PresentedToken, TokenForm, authorization_header, decode_authorization, encode_token, token_problem)
from harness.ocpi.envelope import StatusError

# Worked by hand: "example-token" is 13 bytes, four 3-byte groups (16 characters) and one lone
# byte "n" (0x6e) that gives two characters, "bg", and two "=" pads.
EXAMPLE = "example-token"
EXAMPLE_B64 = "ZXhhbXBsZS10b2tlbg=="
# The 2.3.0 document's own example encodes a trailing newline: do not accept it as the token.
EXAMPLE_WITH_NEWLINE_B64 = "ZXhhbXBsZS10b2tlbgo="


def test_encoding_vector():
    assert encode_token(EXAMPLE) == EXAMPLE_B64
    assert authorization_header(EXAMPLE) == "Token ZXhhbXBsZS10b2tlbg=="


def test_raw_header_when_the_peer_wants_raw():
    assert authorization_header(EXAMPLE, TokenForm.RAW) == "Token example-token"


def test_we_refuse_to_send_an_invalid_token():
    with pytest.raises(HarnessError):
        authorization_header("has space")


@pytest.mark.parametrize("policy", ["base64", "either"])
def test_base64_header_decodes(policy):
    assert decode_authorization(f"Token {EXAMPLE_B64}", policy) == PresentedToken(EXAMPLE, TokenForm.BASE64)


@pytest.mark.parametrize("policy", ["raw", "either"])
def test_raw_header_is_read_as_raw(policy):
    assert decode_authorization("Token example-token", policy) == PresentedToken(EXAMPLE, TokenForm.RAW)


def test_raw_policy_takes_base64_looking_text_literally():
    assert decode_authorization(f"Token {EXAMPLE_B64}", "raw") == PresentedToken(EXAMPLE_B64, TokenForm.RAW)


def test_base64_policy_refuses_a_raw_token_with_401():
    with pytest.raises(StatusError) as caught:
        decode_authorization("Token example-token", "base64")
    assert (caught.value.rule, caught.value.http_status) == (AuthRules.base64, 401)


def test_either_prefers_the_reading_that_names_a_known_token():
    # "abcd" is valid base64 (of i\xb7\x1d, not UTF-8) and a valid raw token; "dGVzdA==" is
    # base64 of "test" and also printable ASCII. With known tokens, the known reading wins.
    assert decode_authorization("Token dGVzdA==", "either", known={"dGVzdA=="}).form is TokenForm.RAW
    assert decode_authorization("Token dGVzdA==", "either", known={"test"}) == PresentedToken("test", TokenForm.BASE64)
    assert decode_authorization("Token dGVzdA==", "either").form is TokenForm.BASE64
    assert decode_authorization("Token abcd", "either") == PresentedToken("abcd", TokenForm.RAW)


def test_trailing_newline_in_the_encoded_token_is_refused():
    with pytest.raises(StatusError) as caught:
        decode_authorization(f"Token {EXAMPLE_WITH_NEWLINE_B64}", "base64")
    assert "'\\n'" in str(caught.value)


def test_either_falls_back_to_raw_for_the_newline_example():
    # Under "either" the text is still a valid raw token; the verifier then sees form RAW.
    presented = decode_authorization(f"Token {EXAMPLE_WITH_NEWLINE_B64}", "either")
    assert presented == PresentedToken(EXAMPLE_WITH_NEWLINE_B64, TokenForm.RAW)


@pytest.mark.parametrize("header, rule", [
    (None, AuthRules.header),
    ("", AuthRules.header),
    ("Bearer ZXhhbXBsZS10b2tlbg==", AuthRules.header),
    ("ZXhhbXBsZS10b2tlbg==", AuthRules.header),
    ("Token  ZXhhbXBsZS10b2tlbg==", AuthRules.base64),
    ("Token ZXhhbXBsZS10b2tlbg", AuthRules.base64),      # padding missing
    ("Token ZXhhbXBsZS10b2tlbh==", AuthRules.base64),    # non-canonical last character
    ("Token /w==", AuthRules.base64),                    # base64 of byte 0xff: not UTF-8
])
def test_malformed_headers_get_401(header, rule):
    with pytest.raises(StatusError) as caught:
        decode_authorization(header, "base64")
    assert (caught.value.rule, caught.value.http_status) == (rule, 401)


def test_scheme_word_is_case_insensitive():
    assert decode_authorization(f"token {EXAMPLE_B64}", "base64").token == EXAMPLE


def test_raw_policy_refuses_an_overlong_token():
    with pytest.raises(StatusError) as caught:
        decode_authorization("Token " + "x" * 65, "raw")
    assert caught.value.rule == AuthRules.token_chars


@pytest.mark.parametrize("version, deviation", [("2.1.1", False), ("2.2", False), ("2.2.1", True), ("2.3.0", True)])
def test_raw_token_is_a_deviation_from_221_on(version, deviation):
    assert PresentedToken(EXAMPLE, TokenForm.RAW).is_deviation_for(version) is deviation
    assert PresentedToken(EXAMPLE, TokenForm.BASE64).is_deviation_for(version) is False


@pytest.mark.parametrize("token, fragment", [
    ("", "empty"),
    ("x" * 65, "65 characters"),
    ("with space", "' '"),
    ("tab\there", "'\\t'"),
    ("caf\u00e9", "'é'"),
    ("del\x7f", "'\\x7f'"),
])
def test_token_problem_names_the_fault(token, fragment):
    assert fragment in token_problem(token)


@pytest.mark.parametrize("token", ["!", "~" * 64, EXAMPLE, "ebf3b399-779f-4497-9b9d-ac6ad3cc44d2"])
def test_valid_tokens_have_no_problem(token):
    assert token_problem(token) is None
