"""The Link header parser against the RFC 8288 §3 grammar (with the RFC 9110 list, token and
quoted-string rules): what it must read, and what it must refuse with the place of the fault."""

import pytest

from harness.ocpi.weblinks import WebLink, parse_links


def test_one_link_with_a_quoted_rel():
    assert parse_links('<https://a.example/p?offset=10&limit=5>; rel="next"') == [
        WebLink("https://a.example/p?offset=10&limit=5", (("rel", "next"),))]


def test_several_links_token_values_and_whitespace():
    links = parse_links(' <https://a/p?o=0> ;rel=prev ,\t<https://a/p?o=10>;  REL = "Next"  ')
    assert [(link.target, link.rels) for link in links] == [("https://a/p?o=0", ("prev",)),
                                                           ("https://a/p?o=10", ("next",))]


def test_quoted_strings_hold_commas_semicolons_and_escapes():
    (link,) = parse_links(r'</x>; title="a, b; \"c\""; rel="next last"')
    assert dict(link.params)["title"] == 'a, b; "c"' and link.rels == ("next", "last")


def test_a_parameter_without_value_and_an_extended_value():
    (link,) = parse_links("</chapter4>; crossorigin; title*=UTF-8'de'n%c3%a4chstes; rel=next")
    assert link.params == (("crossorigin", None), ("title*", "UTF-8'de'n%c3%a4chstes"), ("rel", "next"))


def test_only_the_first_rel_counts():
    (link,) = parse_links('</x>; rel="prev"; rel="next"')
    assert link.rels == ("prev",)


def test_a_link_without_rel_has_no_relation_types():
    assert parse_links("</x>")[0].rels == ()


@pytest.mark.parametrize("value", ["", "   ", ",", " , ,\t"])
def test_empty_lists_are_legal(value):
    assert parse_links(value) == []


def test_empty_list_elements_are_skipped():
    assert [link.target for link in parse_links(", </a>; rel=next, , </b>; rel=last,")] == ["/a", "/b"]


@pytest.mark.parametrize("value, where", [
    ("https://a/p; rel=next", "'<' URI-Reference '>'"),           # no angle brackets
    ("<https://a/p> rel=next", "',' or the end"),                  # no ';' before the parameter
    ('<https://a/p>; rel="next', "a token or a quoted string"),    # unterminated quoted string
    ("<https://a/p>; rel=", "a token or a quoted string"),          # '=' without a value
    ("<https://a/p>; =next", "a parameter name"),                   # no parameter name
    ("<https://a/p>; rel=next <https://a/q>", "',' or the end"),    # two links without a comma
    ("<https://a/p>; rel=ne\"xt", "',' or the end"),                # a quote inside a token
    ("<https://a/p>; r(el=next", "',' or the end"),                 # '(' is no token character
])
def test_malformed_values_are_refused_with_the_place(value, where):
    with pytest.raises(ValueError, match="expected") as caught:
        parse_links(value)
    assert where in str(caught.value) and "at character" in str(caught.value)


@pytest.mark.parametrize("uri", ["https://a/p q", "https://a/p?x=%zz", "https://a/\"p\"", "https://a/p{1}"])
def test_a_target_that_is_no_uri_reference_is_refused(uri):
    with pytest.raises(ValueError, match="not a URI-Reference"):
        parse_links(f"<{uri}>; rel=next")
