"""Plug and Charge faults (C07): contract certificates, OCSP and the station's checks."""

from __future__ import annotations

from harness import contract_pki
from harness.reference import ReferenceCsms, ReferenceStation

from .records import Fault, cs_test, csms_test


class CsmsAcceptsRevokedContract(ReferenceCsms):
    """C07 / Authorization rule 3: a contract certificate the OCSP responder calls revoked is Accepted."""

    async def contract_authorization(self, session, payload):
        answer = await super().contract_authorization(session, payload)
        if answer["certificateStatus"] != "CertificateRevoked":
            return answer
        return {"certificateStatus": "Accepted", "idTokenInfo": self.id_token_info(session, payload["idToken"])}


class CsmsAnswersExpiredCertificateInvalid(ReferenceCsms):
    """C07 / Authorization rule 3: an expired contract certificate is CertificateExpired with Invalid, not Expired."""

    async def contract_authorization(self, session, payload):
        answer = await super().contract_authorization(session, payload)
        expired = answer["certificateStatus"] == "CertificateExpired"
        return answer | {"idTokenInfo": {"status": "Invalid"}} if expired else answer


class CsmsSkipsOcspForWholeChains(ReferenceCsms):
    """C07 / Authorization rule 3: a whole chain is checked for signatures and validity, never at OCSP."""

    async def certificate_status(self, payload):
        if not payload.get("certificate"):
            return await super().certificate_status(payload)
        run = contract_pki.for_run(self.profile)
        return contract_pki.chain_problem(contract_pki.load_chain(payload["certificate"]), [run.root.certificate]) \
            or "Accepted"


class StationHashesTheWrongKey(ReferenceStation):
    """C07 / AuthorizeRequest iso15118CertificateHashData: issuerKeyHash is the hash of the contract
    certificate's own key, not its issuer's."""

    def contract_request(self, certificate):
        request = super().contract_request(certificate)
        if "iso15118CertificateHashData" in request:
            leaf = contract_pki.load_chain(certificate)[0]
            hash_data = contract_pki.hash_data(leaf, leaf)
            request["iso15118CertificateHashData"][0]["issuerKeyHash"] = hash_data["issuerKeyHash"]
        return request


class StationStartsOnContractCancelled(ReferenceStation):
    """C07 / Authorization status values: the station charges on a valid certificate whose contract is
    cancelled (certificateStatus ContractCancelled), whatever idTokenInfo.status says."""

    def contract_accepted(self, answer):
        return super().contract_accepted(answer) or answer.get("certificateStatus") == "ContractCancelled"


class StationIgnoresCentralValidation(ReferenceStation):
    """C07 / Authorization rule 3: with CentralContractValidationAllowed true and a chain it cannot validate,
    the station still sends hash data instead of the chain."""

    def flag(self, component, name):
        return False if name == "CentralContractValidationAllowed" else super().flag(component, name)


class StationLeavesOutTheSubCas(ReferenceStation):
    """C07 / AuthorizeRequest certificate: the "whole chain" is the contract certificate alone."""

    def contract_request(self, certificate):
        request = super().contract_request(certificate)
        if "certificate" in request:
            request["certificate"] = certificate.split("-----END CERTIFICATE-----")[0] + "-----END CERTIFICATE-----\n"
        return request


C07 = "authorization/test_C07.py"


FAULTS: tuple[Fault, ...] = (
    Fault("csms-accepts-revoked-contract", "C07.decision", CsmsAcceptsRevokedContract,
          (csms_test(C07, "test_contract_by_hash_data", "revoked"),
           csms_test(C07, "test_contract_by_whole_chain", "revoked")),
          "AuthorizeResponse certificateStatus (certificate revoked, eMAID not applicable) is wrong"),
    Fault("csms-answers-expired-certificate-invalid", "C07.decision", CsmsAnswersExpiredCertificateInvalid,
          (csms_test(C07, "test_rows_only_a_csms_can_be_asked", "expired-by-whole-chain"),),
          "AuthorizeResponse idTokenInfo.status (certificate expired, eMAID not applicable) is wrong"),
    Fault("csms-skips-ocsp-for-whole-chains", "C07.decision", CsmsSkipsOcspForWholeChains,
          (csms_test(C07, "test_contract_by_whole_chain", "revoked"),),
          "AuthorizeResponse certificateStatus (certificate revoked, eMAID not applicable) is wrong"),
    Fault("station-hashes-the-wrong-key", "C07.hash_data", StationHashesTheWrongKey,
          (cs_test(C07, "test_contract_by_hash_data", "valid-Accepted"),),
          "iso15118CertificateHashData issuerKeyHash (hex, SHA256) is wrong"),
    Fault("station-starts-on-contract-cancelled", "C07.starts", StationStartsOnContractCancelled,
          (cs_test(C07, "test_contract_by_hash_data", "valid-Blocked"),),
          "the SUT sent TransactionEvent when it must not"),
    Fault("station-ignores-central-validation", "C07.chain", StationIgnoresCentralValidation,
          (cs_test(C07, "test_contract_by_whole_chain", "unverifiable"),),
          "the AuthorizeRequest carries no PEM certificate chain in certificate"),
    Fault("station-leaves-out-the-sub-cas", "C07.chain", StationLeavesOutTheSubCas,
          (cs_test(C07, "test_contract_by_whole_chain", "valid-Accepted"),),
          "the chain in certificate leaves out sub-CAs of the contract certificate"),
)
