"""OCPI_TARIFFS_RECEIVER — the eMSP's Tariffs Receiver facing requests a CPO may get wrong or a careful
Receiver must read by the letter (tariffs 2.2.1, Receiver interface; ``TariffRules`` in
harness/ocpi/tariffs.py).

The harness plays the CPO: a GET of a Tariff never pushed, a PATCH (not defined in 2.2.1), a PUT whose
URL ids differ from the Tariff's, a push under another party, ids in another case (CiStrings), a GET
after a DELETE. Where the text does not say which error code answers a refused request, any error
status code passes (2001 where §4.1.8.1 advises it, as its own row).
"""

import copy
import secrets

import pytest

from harness.arena.ocpi import check_answer
from harness.ocpi.envelope import StatusCode
from harness.ocpi.tariffs import TARIFFS, TariffRules as Tar
from harness.roles import CPO, EMSP
from harness.suite import OCPI, case, checks
from harness.usecases import ocpi_tariffs as tar
from harness.verdict import check_equal

pytestmark = case("OCPI_TARIFFS_RECEIVER", block="Tariffs", roles=(EMSP,), protocols=OCPI)


async def _pushed(ocpi) -> dict:
    """Registered, one Tariff of the harness's CPO pushed and held by the eMSP: the harness's own."""
    sent = await tar.push(ocpi)
    return copy.deepcopy(tar.held_by_harness(ocpi, sent["id"]))


@checks(Tar.unknown_refused)
async def test_get_of_an_unknown_tariff_is_refused(ocpi):
    """A GET of a Tariff the eMSP never got is not answered with success."""
    await _pushed(ocpi)
    answer = await tar.stored_answer(ocpi, f"TAR-NEVER-PUT-{secrets.token_hex(4).upper()}")
    check_answer(answer, Tar.unknown_refused, "a GET of an unknown Tariff", success=False)


@checks(Tar.patch_refused, Tar.stored)
async def test_patch_is_refused_and_changes_nothing(ocpi):
    """PATCH is not defined for Tariffs in 2.2.1: a PATCH of the currency is refused, and the Tariff
    keeps its currency."""
    sent = await _pushed(ocpi)
    other = "USD" if sent["currency"] != "USD" else "JPY"
    answer = await ocpi.send("PATCH", ocpi.sut_url(TARIFFS, sent["id"]), token=ocpi.token_to_sut, module=TARIFFS,
                             body={"currency": other, "last_updated": tar.later(sent)})
    check_answer(answer, Tar.patch_refused, "a PATCH of a Tariff", success=False)
    held = await tar.must_hold(ocpi, sent)
    check_equal(Tar.patch_refused, "currency after the refused PATCH", sent["currency"], held.get("currency"))


@pytest.mark.parametrize("field", ["country_code", "party_id", "id"])
@checks(Tar.mismatch_refused)
async def test_put_whose_url_differs_from_the_body_is_refused(ocpi, field):
    """A PUT whose URL country_code, party_id or tariff_id is not the Tariff's is refused."""
    sent = await _pushed(ocpi)
    other = {"country_code": "XX", "party_id": "ZZZ", "id": f"TAR-OTHER-{secrets.token_hex(4).upper()}"}[field]
    body = {**sent, "last_updated": tar.later(sent)}
    if field != "id":
        body[field] = other
    ids = (other,) if field == "id" else (sent["id"],)
    answer = await ocpi.exchange(CPO, "PUT", TARIFFS, ids, body, rule=Tar.mismatch_refused)
    check_answer(answer, Tar.mismatch_refused, f"a PUT whose {field} differs between URL and body", success=False)


@checks(Tar.mismatch_2001)
async def test_put_whose_url_differs_from_the_body_gets_2001(ocpi):
    """The refusal of a PUT whose URL tariff_id is not the Tariff's is status 2001, as advised."""
    sent = await _pushed(ocpi)
    other = f"TAR-OTHER-{secrets.token_hex(4).upper()}"
    answer = await ocpi.exchange(CPO, "PUT", TARIFFS, (other,), {**sent, "last_updated": tar.later(sent)},
                                 rule=Tar.mismatch_2001)
    check_answer(answer, Tar.mismatch_2001, "a PUT whose tariff_id differs between URL and body",
                 status_code=StatusCode.INVALID_PARAMETERS)


@checks(Tar.party_registered)
async def test_push_under_another_party_is_refused(ocpi):
    """A CPO pushes only under the party its credentials roles declare: a Tariff PUT under another
    country_code/party_id (URL and body agreeing) is refused."""
    sent = await _pushed(ocpi)
    tariff_id = f"TAR-ELSEWHERE-{secrets.token_hex(4).upper()}"
    body = {**sent, "country_code": "XX", "party_id": "ZZZ", "id": tariff_id}
    url = f"{ocpi.sut_url(TARIFFS).rstrip('/').rsplit('/', 2)[0]}/XX/ZZZ/{tariff_id}"
    answer = await ocpi.send("PUT", url, token=ocpi.token_to_sut, module=TARIFFS, body=body)
    check_answer(answer, Tar.party_registered, "a PUT under a party the harness never declared", success=False)


@checks(Tar.ids_case_insensitive, Tar.put_replaces, Tar.stored)
async def test_ids_in_another_case_name_the_same_tariff(ocpi):
    """tariff_id is a CiString: a GET with the id in lower case answers the Tariff, and a PUT with the
    id in lower case replaces it (a GET in the original case sees the new price)."""
    sent = await _pushed(ocpi)
    lower = sent["id"].lower()
    answer = await tar.stored_answer(ocpi, lower)
    check_answer(answer, Tar.ids_case_insensitive, f"a GET of the Tariff as {lower}", success=True)
    body = copy.deepcopy({**sent, "id": lower, "last_updated": tar.later(sent)})
    body["elements"][0]["price_components"][0]["price"] = 0.99
    put = await ocpi.exchange(CPO, "PUT", TARIFFS, (lower,), body, rule=Tar.ids_case_insensitive)
    check_answer(put, Tar.ids_case_insensitive, f"the PUT of the Tariff as {lower}", success=True)
    held = await tar.must_hold(ocpi, sent)
    check_equal(Tar.ids_case_insensitive, "the first price after the PUT in lower case", 0.99,
                held["elements"][0]["price_components"][0].get("price"))


@checks(Tar.deleted, Tar.stored)
async def test_delete_then_put_again_makes_it_new(ocpi):
    """After a DELETE the Tariff is gone (a GET fails); PUT again, it is held once more."""
    sent = await _pushed(ocpi)
    answer = await ocpi.exchange(CPO, "DELETE", TARIFFS, (sent["id"],), rule=Tar.deleted)
    check_answer(answer, Tar.deleted, "the DELETE of the Tariff", success=True)
    check_answer(await tar.stored_answer(ocpi, sent["id"]), Tar.deleted, "a GET after the DELETE", success=False)
    body = {**sent, "last_updated": tar.later(sent)}
    put = await ocpi.exchange(CPO, "PUT", TARIFFS, (sent["id"],), body, rule=Tar.stored)
    check_answer(put, Tar.stored, "the PUT after the DELETE", success=True)
    await tar.must_hold(ocpi, body)
