"""OCPI_CDRS_RECEIVER — the eMSP's CDRs Receiver facing what a CPO may send it (cdrs 2.2.1, Receiver
interface; ``CdrRules`` in harness/ocpi/cdrs.py; docs/requirements/ocpi-cdrs.md).

The harness plays the CPO: it POSTs the CDR of an ended session and reads it back at the Location the
eMSP answered, then sends what a careful Receiver must refuse or handle by the letter: a PUT, PATCH or
DELETE of the CDR (n/a: a CDR is never changed), a second POST of the same CDR id, a GET at a URL the
eMSP never gave, a CDR under a party the harness never declared. Where the text does not say which
error code answers a refused request, any error status code passes.
"""

import secrets

import pytest

from harness.arena.ocpi import check_answer
from harness.ocpi.cdrs import CDRS, CdrRules as Cdr
from harness.roles import CPO, EMSP
from harness.suite import OCPI, case, checks
from harness.usecases import ocpi_cdrs as cdrs
from harness.usecases import ocpi_sessions as ses
from harness.verdict import require, violated

pytestmark = case("OCPI_CDRS_RECEIVER", block="CDRs", roles=(EMSP,), protocols=OCPI)


async def _held_as_posted(ocpi, posted, rule) -> None:
    held = await cdrs.held_by_sut(ocpi, posted)
    cdrs.check_held(ocpi, posted.cdr, held, rule)


@checks(Cdr.location_header, Cdr.stored, Cdr.ids_as_sent)
async def test_post_answers_a_location_that_serves_the_cdr(ocpi):
    """The POST is answered with success and a Location; a GET there answers the CDR as posted (its ids in
    the case they were sent: another case is a finding)."""
    posted = await cdrs.sent_cdr(ocpi)
    held = await cdrs.held_by_sut(ocpi, posted)
    cdrs.check_held(ocpi, posted.cdr, held)
    for name in ("country_code", "party_id", "id"):
        if posted.cdr[name] != held.get(name):
            violated(Cdr.ids_as_sent, f"the CDR's {name} comes back in another case",
                          expected=posted.cdr[name], actual=held.get(name))


@pytest.mark.parametrize("method", ["PUT", "PATCH", "DELETE"])
@checks(Cdr.never_changed, Cdr.stored)
async def test_a_cdr_is_never_changed(ocpi, method):
    """A PUT, PATCH or DELETE at the CDR's Location is refused (n/a in the text: a CDR cannot be replaced,
    updated or removed) and the CDR stays as posted."""
    posted = await cdrs.sent_cdr(ocpi)
    change = {"total_cost": {"excl_vat": 0.01, "incl_vat": 0.01}, "last_updated": ses.seconds_later(
        posted.cdr["last_updated"], 60)}
    body = {**posted.cdr, **change} if method == "PUT" else change if method == "PATCH" else None
    answer = await ocpi.send(method, posted.location, token=ocpi.token_to_sut, module=CDRS, body=body)
    check_answer(answer, Cdr.never_changed, f"a {method} of a CDR", success=False)
    await _held_as_posted(ocpi, posted, Cdr.never_changed)


@checks(Cdr.not_replaced, Cdr.stored)
async def test_second_post_of_a_cdr_id_does_not_replace_it(ocpi):
    """The CDR POSTed again with the same id and another total_cost does not replace the one held (refused,
    or taken without effect): the Location still serves the first."""
    posted = await cdrs.sent_cdr(ocpi)
    again = {**posted.cdr, "total_cost": {"excl_vat": 0.01, "incl_vat": 0.01}}
    await ocpi.exchange(CPO, "POST", CDRS, (), again, rule=Cdr.not_replaced)
    await _held_as_posted(ocpi, posted, Cdr.not_replaced)


@checks(Cdr.unknown_refused)
async def test_get_of_a_cdr_it_never_got_is_refused(ocpi):
    """A GET below the CDRs endpoint of a CDR the eMSP never got (beside one it did: the same URL with
    another last part) is not answered with success."""
    posted = await cdrs.sent_cdr(ocpi)
    stranger = f"{posted.location.rstrip('/').rsplit('/', 1)[0]}/NEVERPOSTED{secrets.token_hex(4).upper()}"
    answer = await cdrs.read(ocpi, stranger)
    check_answer(answer, Cdr.unknown_refused, "a GET of a CDR the eMSP never got", success=False)


@checks(Cdr.party_registered)
async def test_cdr_under_another_party_is_refused(ocpi):
    """A CDR owned by a party none of the harness's roles declares is refused."""
    posted = await cdrs.sent_cdr(ocpi)
    body = {**posted.cdr, "country_code": "XX", "party_id": "ZZZ", "id": f"OTHER-{secrets.token_hex(6).upper()}"}
    answer = await ocpi.exchange(CPO, "POST", CDRS, (), body, rule=Cdr.party_registered)
    check_answer(answer, Cdr.party_registered, "a POST of a CDR under a party the harness never declared",
                 success=False)


@checks(Cdr.credit_kept, Cdr.location_header, Cdr.stored)
async def test_credit_cdr_is_kept_beside_its_cdr(ocpi):
    """A Credit CDR gets a Location of its own; the CDR it credits is still served as posted."""
    posted = await cdrs.sent_cdr(ocpi)
    credit = await cdrs.credit(ocpi, posted)
    check_answer(credit.exchange, Cdr.credit_kept, "the POST of the Credit CDR", success=True)
    require(credit.location != posted.location, Cdr.credit_kept, "the Credit CDR got the Location of the CDR "
                 "it credits", expected="another URL", actual=credit.location)
    await _held_as_posted(ocpi, credit, Cdr.credit_kept)
    await _held_as_posted(ocpi, posted, Cdr.credit_kept)
