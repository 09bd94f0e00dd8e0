"""C07 — Authorization by contract certificate (Plug and Charge).

The EV presents its contract certificate over ISO 15118 (actuator ``plug_in_pnc``, with the PEM chain);
the station asks with AuthorizeRequest, idToken the eMAID of type eMAID, and either the contract
certificate's OCSP request data (iso15118CertificateHashData) or, when it cannot validate the chain
itself and CentralContractValidationAllowed is true, the whole chain (certificate). The CSMS checks the
certificate (chain, validity, OCSP at the responderURL) and the eMAID and answers by the decision matrix
of spec 001 Authorization rule 3; the station charges only on idTokenInfo.status Accepted.

The certificates are the run's (``harness.contract_pki``): valid, expired, revoked (the harness's OCSP
responder on loopback answers revoked) and unverifiable (issued under an unknown root). A station under
test trusts the V2G root of the profile's [plug_and_charge] (profiles/README.md), so it may validate a
contract itself. Readings chosen where the text is silent:
- a station that can validate the chain (every row but the unverifiable one) may send hash data even
  with CentralContractValidationAllowed true: the chain is required only for the chain it cannot validate
  (the unknown root); whichever it sends is judged in full;
- from hash data alone a CSMS cannot see a certificate's validity dates, so the expired row is played on
  the whole-chain path only, and only for a CSMS under test (a station that validates itself may refuse
  an expired contract without asking, which the harness cannot tell from a station that never asks);
- hash data of a certificate under an unknown root is played for a CSMS only (a station that validates
  itself refuses it without asking); an OCSP responder that is not authoritative for the issuer leaves
  the certificate unverifiable: CertChainError.
The signature of the ISO 15118 challenge is between the EV and the station: nothing on the OCPP wire shows
it. No public certification listing is confirmed for C07: no certification ids.
"""

from typing import NamedTuple

import pytest

from harness.roles import CS, CSMS
from harness.profile import Token
from harness.rules import RuleTable, must
from harness.suite import OCPP2, TC, case, checks, needs
from harness.usecases.authorization import Authorization, never_starts_with, starts_with, token_with
from harness.usecases.plug_and_charge import (central_validation, check_chain, check_contract_token, check_hash_data,
                                              ocsp_responder, present_contract)
from harness.verdict import check_equal, dig


class C07(RuleTable):
    """The rules of C07 (spec 001 Authorization rule 3, AuthorizeRequest and AuthorizeResponse)."""
    presented = must("spec 001 Authorization rule 3; AuthorizeRequest idToken",
                     "for a contract certificate the station asks with AuthorizeRequest, idToken the contract's "
                     "eMAID of type eMAID", by=CS)
    hash_data = must("spec 001 Authorization rule 3; AuthorizeRequest iso15118CertificateHashData",
                     "validating by hash data, the station sends the contract certificate's OCSP request data: "
                     "issuerNameHash and issuerKeyHash of its issuer, its serialNumber, its responderURL", by=CS)
    chain = must("spec 001 Authorization rule 3; AuthorizeRequest certificate",
                 "unable to validate the contract and CentralContractValidationAllowed true, the station sends "
                 "the whole PEM chain, contract certificate first, in certificate", by=CS)
    starts = must("spec 001 Authorization status values; Authorization rule 3",
                  "the station charges on a contract only when idTokenInfo.status is Accepted, whatever "
                  "certificateStatus says", by=CS)
    decision = must("spec 001 Authorization rule 3 (decision matrix); AuthorizeResponse certificateStatus",
                    "the CSMS answers a contract with the certificateStatus and idTokenInfo.status of the matrix "
                    "row of its certificate and eMAID", by=CSMS)


pytestmark = case("C07", block="Authorization", roles=("csms", "cs"), protocols=OCPP2, requires=["plug_and_charge"])


class Row(NamedTuple):
    """One row of the decision matrix: the certificate, the eMAID's status (None: not applicable, the
    accepted eMAID is presented), and the answer it must get."""
    certificate: str
    emaid: str | None
    certificate_status: str
    id_token_status: str

    @property
    def id(self) -> str:
        return f"{self.certificate}-{self.emaid}" if self.emaid else self.certificate


VALID_ROWS = [Row("valid", "Accepted", "Accepted", "Accepted")] + \
    [Row("valid", status, "ContractCancelled", status) for status in ("Blocked", "Expired", "Invalid", "Unknown")]
EXPIRED = Row("expired", None, "CertificateExpired", "Expired")
REVOKED = Row("revoked", None, "CertificateRevoked", "Invalid")
UNVERIFIABLE = Row("unverifiable", None, "CertChainError", "Invalid")
RULES = (C07.decision, Authorization.sent, C07.presented, C07.starts)


def _emaid(profile, row: Row) -> Token:
    return token_with(profile, row.emaid or "Accepted", type="eMAID")


async def _present(ocpp, profile, row: Row, central: bool) -> None:
    """One row played: the EV presents the row's contract; a CSMS is judged on its answer, a station on
    its request and on whether it charges."""
    token = _emaid(profile, row)
    contract = (await ocsp_responder(ocpp)).contract(token.id, row.certificate)
    await central_validation(ocpp, central)
    start = ocpp.mark()
    exchange = await present_contract(ocpp, contract, profile.evses[0].id, central=central)
    if ocpp.is_sut(CSMS):
        matrix_row = f"(certificate {row.certificate}, eMAID {row.emaid or 'not applicable'})"
        check_equal(C07.decision, f"AuthorizeResponse certificateStatus {matrix_row}", row.certificate_status,
                    exchange.result.get("certificateStatus"))
        check_equal(C07.decision, f"AuthorizeResponse idTokenInfo.status {matrix_row}", row.id_token_status,
                    dig(exchange.result, "idTokenInfo.status"))
        return
    check_contract_token(exchange.request, contract, C07.presented)
    if central and ("certificate" in exchange.request or row.certificate == "unverifiable"):
        check_chain(exchange.request, contract, C07.chain)
    else:   # a station that validates the chain itself may send hash data (module docstring)
        check_hash_data(exchange.request, contract, C07.hash_data)
    if row.id_token_status == "Accepted":
        await starts_with(ocpp, token, start, C07.starts)
    else:
        await never_starts_with(ocpp, token, start, C07.starts)


@pytest.mark.parametrize("row", [pytest.param(r, id=r.id, marks=checks(*RULES, C07.hash_data,
        csms=(TC("TC_C_50_CSMS", "ocpp2.0.1", when="valid-Accepted"), TC("TC_C_51_CSMS", "ocpp2.0.1", when="revoked"))))
                                 for r in VALID_ROWS + [REVOKED]])
@needs(lambda given: _emaid(given.profile, given.params["row"]))
async def test_contract_by_hash_data(ocpp, profile, row):
    """The station sends the contract's OCSP request data (CentralContractValidationAllowed false); the CSMS
    asks the responder and answers the row; the station charges only on Accepted."""
    await _present(ocpp, profile, row, central=False)


@pytest.mark.parametrize("row", [pytest.param(r, id=r.id, marks=checks(*RULES, C07.chain, C07.hash_data,
        csms=TC("TC_C_52_CSMS", "ocpp2.0.1", when="valid-Accepted")))
                                 for r in VALID_ROWS + [REVOKED, UNVERIFIABLE]])
@needs(lambda given: _emaid(given.profile, given.params["row"]))
async def test_contract_by_whole_chain(ocpp, profile, row):
    """CentralContractValidationAllowed true: a station that cannot validate the chain sends it whole (one
    that can may send hash data); the CSMS validates it (signatures to its V2G root, validity, OCSP) and
    answers the row; the station charges only on Accepted."""
    await _present(ocpp, profile, row, central=True)


@pytest.mark.parametrize("row, central", [pytest.param(EXPIRED, True, id="expired-by-whole-chain"),
                                          pytest.param(UNVERIFIABLE, False, id="unverifiable-by-hash-data")])
@checks(C07.decision)
@pytest.mark.sut_roles("csms")
@needs(lambda given: _emaid(given.profile, given.params["row"]))
async def test_rows_only_a_csms_can_be_asked(ocpp, profile, row, central):
    """The expired certificate's chain (CertificateExpired, Expired) and the hash data of one under an unknown
    root (the responder is not authoritative: CertChainError, Invalid) — rows a station that validates
    contracts itself settles without asking (module docstring)."""
    await _present(ocpp, profile, row, central=central)
