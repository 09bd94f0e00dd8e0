"""P01 — Data transfer to the charging station (the CSMS sends DataTransfer). The rules are the
shared dialogue's (harness.usecases.data_transfer, namespace ``datatransfer``)."""

import pytest

from harness.roles import CSMS
from harness.suite import OCPP2, TC, case
from harness.usecases import data_transfer

pytestmark = case("P01", block="Data transfer", roles=("csms", "cs"), protocols=OCPP2)


@pytest.mark.parametrize("transfer", data_transfer.cases(cs=TC("TC_P_01_CS", "ocpp2.0.1")))
async def test_data_transfer_to_station(ocpp, transfer):
    """The station answers each case with its status; a CSMS sends exactly what it was asked."""
    await data_transfer.check_transfer(ocpp, CSMS, transfer)
