"""DATA16 — DataTransfer in 1.6, both directions: the same dialogue, statuses and rules as 2.x
P01/P02, played by the shared use case (harness.usecases.data_transfer, namespace
``datatransfer``; spec 002 DataTransferStatus, behaviour rule 10: either side may initiate)."""

import pytest

from harness.roles import CS, CSMS
from harness.suite import OCPP16, TC, case
from harness.usecases import data_transfer

pytestmark = case("DATA16", block="Core (1.6)", roles=("csms", "cs"), protocols=OCPP16)


@pytest.mark.parametrize("transfer", data_transfer.cases(cs=TC("TC_062_CS", "ocpp1.6")))
async def test_data_transfer_to_charge_point(ocpp, transfer):
    """The charge point answers each case with its status; a central system sends what it was asked."""
    await data_transfer.check_transfer(ocpp, CSMS, transfer)


@pytest.mark.parametrize("transfer", data_transfer.cases(csms=TC("TC_064_CSMS", "ocpp1.6")))
async def test_data_transfer_to_central_system(ocpp, transfer):
    """The central system answers each case with its status; a charge point sends what it was asked."""
    await data_transfer.check_transfer(ocpp, CS, transfer)
