"""DATA16 — DataTransfer in 1.6, both directions: the same dialogue and statuses as 2.x P01/P02,
played by the shared use case (spec 002 DataTransferStatus; behaviour rule 10: either side may
initiate; an unknown vendorId is answered UnknownVendorId, a known one with an unknown messageId
UnknownMessageId, a processed one Accepted, a refused one Rejected)."""

import pytest

from harness.arena import CS, CSMS
from harness.suite import OCPP16, case, certified
from harness.usecases import data_transfer

pytestmark = case("DATA16", block="Core (1.6)", roles=("csms", "cs"), protocols=OCPP16)


def _cases(**certification):
    """The four cases; the unknown vendor is the certification case where one exists."""
    return [pytest.param(name, marks=certified(pytestmark, **certification)) if name == "unknown_vendor" else name
            for name in data_transfer.CASES]


@pytest.mark.parametrize("transfer", _cases(cs="TC_062_CS"))
async def test_data_transfer_to_charge_point(ocpp, transfer):
    """The charge point answers each case with its status; a central system sends what it was asked."""
    await data_transfer.check_transfer(ocpp, CSMS, transfer)


@pytest.mark.parametrize("transfer", _cases(csms="TC_064_CSMS"))
async def test_data_transfer_to_central_system(ocpp, transfer):
    """The central system answers each case with its status; a charge point sends what it was asked."""
    await data_transfer.check_transfer(ocpp, CS, transfer)
