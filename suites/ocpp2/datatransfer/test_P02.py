"""P02 — Data transfer to the CSMS (the station sends DataTransfer). The rules are the shared
dialogue's (harness.usecases.data_transfer, namespace ``datatransfer``)."""

import pytest

from harness.roles import CS
from harness.suite import OCPP2, TC, case
from harness.usecases import data_transfer

pytestmark = case("P02", block="Data transfer", roles=("csms", "cs"), protocols=OCPP2)


@pytest.mark.parametrize("transfer", data_transfer.cases(csms=TC("TC_P_02_CSMS", "ocpp2.0.1")))
async def test_data_transfer_to_csms(ocpp, transfer):
    """The CSMS answers each case with its status; a station sends exactly what it was asked."""
    await data_transfer.check_transfer(ocpp, CS, transfer)
