"""E05 — Start transaction, id not accepted: a station that accepted a token locally (from its cache or its
own list) reports the transaction with it; the CSMS checks the token and answers its real status, which
the station then acts on as StopTxOnInvalidId and TxStopPoint say (judged by C15 for a station under test).
The requirements, in our words: docs/requirements/E.md.

Played with a CSMS under test only: the harness's station starts from its own cache with a token the profile
says the CSMS does not know."""

import pytest

from harness.roles import CSMS
from harness.rules import RuleTable, must
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.authorization import cached_start, token_with
from harness.usecases.transactions import Transaction
from harness.verdict import check_in, dig


class E05(RuleTable):
    """The rules of E05 (OCPP 2.0.1 part 2 E01.FR.11, E01.FR.12; spec 001 Authorization rule 7)."""
    refused = must("OCPP 2.0.1 part 2 E01.FR.11, E01.FR.12; spec 001 Authorization rule 7",
                   "a Started event carrying a token the CSMS does not accept is answered with idTokenInfo of a "
                   "refusing status", by=CSMS)


pytestmark = case("E05", block="Transactions", roles=("csms",), protocols=OCPP2)


@pytest.mark.parametrize("status", ["Invalid", "Blocked"])
@checks(E05.refused, Transaction.answered, csms=TC("TC_E_16_CSMS", "ocpp2.0.1", when="Invalid"))
async def test_token_accepted_locally_is_refused(ocpp, profile, status):
    """The harness's station starts from its cache with a token the CSMS holds as ``status``: the CSMS
    answers the Started event with that refusal (any status but Accepted passes)."""
    token = token_with(profile, status)
    _, started = await cached_start(ocpp, token, E05.refused)
    answer = dig(started.result, "idTokenInfo.status")
    check_in(E05.refused, "TransactionEventResponse idTokenInfo.status of a token the CSMS does not accept",
             ("Invalid", "Blocked", "Expired", "Unknown", "NoCredit", "NotAllowedTypeEVSE", "NotAtThisLocation",
              "NotAtThisTime", "ConcurrentTx"), answer)
