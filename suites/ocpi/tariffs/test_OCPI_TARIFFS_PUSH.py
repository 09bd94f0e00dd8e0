"""OCPI_TARIFFS_PUSH — the CPO pushes its Tariffs to the eMSP's Receiver (tariffs 2.2.1, push model;
``TariffRules`` in harness/ocpi/tariffs.py; docs/requirements/ocpi-tariffs.md).

Played with either platform under test; the CPO always initiates (the actuator asks a CPO under test:
``push_tariff``, ``update_tariff``, ``delete_tariff``). The harness's Receiver judges every push of a
CPO under test as it stores it (schema, the Tariff's own rows, URL ids); what the CPO pushed is then
read back from the SUT: from the eMSP's Receiver as stored (GET), or from the CPO's own list. A new
Tariff is PUT whole, a change is the whole Tariff PUT again with a later last_updated (no PATCH in
2.2.1), and a Tariff no longer used is DELETEd and then gone.
"""

import pytest

from harness.ocpi.tariffs import TariffRules as Tar
from harness.roles import CPO, EMSP
from harness.suite import OCPI, case, checks
from harness.usecases import ocpi_tariffs as tar
from harness.verdict import check_equal

pytestmark = case("OCPI_TARIFFS_PUSH", block="Tariffs", roles=(CPO, EMSP), protocols=OCPI)

HELD = (Tar.stored, Tar.listed, Tar.listed_as_pushed)   # what the SUT holds: an eMSP as stored, a CPO in its list
OBJECT = (Tar.elements, Tar.price_components, Tar.currency, Tar.restriction_times, Tar.reservation_dimensions,
          Tar.fallback_element)


@pytest.mark.parametrize("ocpi", ["in_process", "sockets"], indirect=True)
@checks(Tar.pushed, Tar.put_ids, Tar.receiver_url, *OBJECT, *HELD)
async def test_new_tariff_is_put_and_held(ocpi):
    """A new Tariff is PUT whole; the SUT then holds that very Tariff: its currency, its elements in
    their order (the first matching element of a dimension counts), its alternative texts."""
    sent = await tar.push(ocpi)
    held = await tar.must_hold(ocpi, sent)
    for field in ("id", "currency", "type", "elements", "tariff_alt_text", "tariff_alt_url", "energy_mix"):
        tar.check_held(ocpi, field, sent.get(field), held.get(field))


@pytest.mark.parametrize("shape", ["AC-NIGHT", "AC-WEEKEND", "DC-RESERVE", "DC-FAST"])
@checks(Tar.pushed, *OBJECT, *HELD)
async def test_restricted_elements_are_held_in_order(ocpi, shape):
    """A Tariff with restricted elements (a night time range; weekdays with a time range and a minimum
    duration; a reservation priced by FLAT and TIME; a power threshold with a minimum and maximum price)
    ahead of their unrestricted fallbacks: held with every restriction and in the order pushed."""
    sent = await tar.push(ocpi, shape=shape)
    held = await tar.must_hold(ocpi, sent)
    for field in ("elements", "min_price", "max_price"):
        tar.check_held(ocpi, field, sent.get(field), held.get(field))


@checks(Tar.pushed, *OBJECT, *HELD)
async def test_free_tariff_is_held_as_free(ocpi):
    """Free of charge is a FLAT PriceComponent of price 0.00 (§11.3.1): held with that price 0, which is a
    price, not an absent one."""
    sent = await tar.push(ocpi, shape="AC-FREE")
    flat = [c for e in sent["elements"] for c in e["price_components"] if c.get("type") == "FLAT"]
    check_equal(Tar.pushed, "the FLAT prices of the free Tariff", [0], [c.get("price") for c in flat])
    held = await tar.must_hold(ocpi, sent)
    tar.check_held(ocpi, "elements", sent["elements"], held.get("elements"))


@checks(Tar.pushed, Tar.put_only, Tar.last_updated_moves, Tar.put_replaces, Tar.listed_as_pushed, Tar.stored,
        Tar.listed)
async def test_changed_tariff_is_put_again_with_a_later_last_updated(ocpi):
    """A price change is the whole Tariff PUT again (no PATCH in 2.2.1), with a later last_updated; the
    SUT holds the new price."""
    sent = await tar.push(ocpi)
    again = await tar.update(ocpi, sent)
    held = await tar.must_hold(ocpi, again)
    tar.check_held(ocpi, "elements", again["elements"], held.get("elements"))
    tar.check_held(ocpi, "last_updated", again["last_updated"], held.get("last_updated"))


@checks(Tar.pushed, Tar.put_replaces, Tar.last_updated_moves, Tar.stored, Tar.listed_as_pushed)
async def test_member_left_out_of_a_put_is_gone(ocpi):
    """A PUT replaces the Tariff whole: pushed again without its alternative text, the SUT no longer
    holds one (null and absent are the same)."""
    sent = await tar.push(ocpi)
    again = await tar.update(ocpi, sent, alt_text=False)
    check_equal(Tar.pushed, "tariff_alt_text of the second PUT", None, again.get("tariff_alt_text") or None)
    held = await tar.must_hold(ocpi, again)
    rule = Tar.put_replaces if ocpi.is_sut(EMSP) else Tar.listed_as_pushed
    check_equal(rule, "tariff_alt_text after the PUT without it", None, held.get("tariff_alt_text") or None)


@checks(Tar.receiver_url, Tar.deleted, Tar.deleted_unlisted, Tar.unreferenced_deleted, Tar.pushed)
async def test_deleted_tariff_is_gone(ocpi):
    """A Tariff no Connector uses is DELETEd at {tariffs}/{country_code}/{party_id}/{tariff_id}: the
    eMSP no longer answers it, the CPO no longer lists it."""
    sent = await tar.push(ocpi)
    await tar.must_hold(ocpi, sent)
    await tar.delete(ocpi, sent)
    held = await tar.held_by_sut(ocpi, sent)
    rule = Tar.deleted if ocpi.is_sut(EMSP) else Tar.deleted_unlisted
    check_equal(rule, f"the Tariff {sent['id']} after its DELETE", None, held and held.get("id"))
