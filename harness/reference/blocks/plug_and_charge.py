"""Plug and Charge (spec 001 C07, Authorization rule 3): authorization by the EV's contract certificate.

Station 2.x: an EV presents its contract certificate chain over ISO 15118 (actuator ``plug_in_pnc``,
the cable in first). The reference station holds no MO root, so it validates nothing itself: with
ISO15118Ctrlr.CentralContractValidationAllowed true it sends the whole chain in ``certificate``,
otherwise the contract certificate's OCSP request data in ``iso15118CertificateHashData``; the idToken
is the eMAID (the certificate's common name) of type eMAID. It charges only when idTokenInfo.status is
Accepted, whatever certificateStatus says.

CSMS 2.x: the decision matrix of rule 3. The certificate first — from the whole chain: signatures up to
the run's V2G root (``contract_pki.for_run``), validity, then the contract certificate's OCSP status;
from hash data: each item's OCSP status at its responderURL (httpx; only the run's own responder is
asked, any other responderURL leaves the certificate unverified) — then the eMAID's status from the
token store: a valid certificate gives Accepted for an accepted eMAID and ContractCancelled with the
eMAID's status otherwise; an expired one CertificateExpired/Expired, a revoked one
CertificateRevoked/Invalid, one that cannot be verified (an unknown root, or no good OCSP answer)
CertChainError/Invalid.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.reference.base import StationSession
from harness.reference.common import V2X, Block
from harness.reference.model import EvseState

if TYPE_CHECKING:
    from harness import contract_pki
else:   # cryptography only once a contract certificate is handled (not in a load client)
    from harness.lazy import lazy_module
    contract_pki = lazy_module("harness.contract_pki")

# certificateStatus of a certificate that is not valid → idTokenInfo.status (Authorization rule 3)
REFUSED_CERTIFICATE = {"CertificateExpired": "Expired", "CertificateRevoked": "Invalid", "CertChainError": "Invalid"}


def is_contract_request(payload: dict) -> bool:
    """An AuthorizeRequest about a contract certificate (Plug and Charge) rather than a token alone."""
    return bool(payload.get("certificate") or payload.get("iso15118CertificateHashData"))


class PlugAndChargeStation2x(Block):
    versions = V2X
    undone_by = {"plug_in_pnc": lambda body: ("unplug", {"evse_id": body.get("evse_id", 1)})}
    requires = ("AuthorizationStation2x", "DeviceModelStation2x")

    async def act_plug_in_pnc(self, certificate: str, evse_id: int = 1) -> None:
        """The cable in, the EV presents ``certificate`` (PEM chain, contract certificate first)."""
        await self.act_plug_in(evse_id)
        self.background.spawn(self._contract_presented(self.evses[evse_id], certificate))

    def contract_request(self, certificate: str) -> dict:
        """The AuthorizeRequest for a presented contract chain."""
        chain = contract_pki.load_chain(certificate)
        request = {"idToken": {"idToken": contract_pki.emaid_of(chain[0]), "type": "eMAID"}}
        if self.flag("ISO15118Ctrlr", "CentralContractValidationAllowed"):
            return request | {"certificate": certificate}
        issuer = chain[1] if len(chain) > 1 else chain[0]
        return request | {"iso15118CertificateHashData": [contract_pki.hash_data(chain[0], issuer)]}

    def contract_accepted(self, answer: dict) -> bool:
        """Charging is allowed on idTokenInfo.status Accepted only (spec 001 Authorization status values)."""
        return answer["idTokenInfo"]["status"] == "Accepted"

    async def _contract_presented(self, state: EvseState, certificate: str) -> None:
        request = self.contract_request(certificate)
        answer = await self.call("Authorize", request)
        self.id_token_answered(request["idToken"], answer["idTokenInfo"])
        if self.contract_accepted(answer):
            await self._authorized(state, request["idToken"], answer["idTokenInfo"].get("groupIdToken"))


class PlugAndChargeCsms2x(Block):
    versions = V2X
    requires = ("AuthorizationCsms2x",)

    async def contract_authorization(self, session: StationSession, payload: dict) -> dict:
        """The AuthorizeResponse to a contract: certificateStatus and idTokenInfo by the matrix of rule 3."""
        certificate = await self.certificate_status(payload)
        if certificate in REFUSED_CERTIFICATE:
            return {"certificateStatus": certificate, "idTokenInfo": {"status": REFUSED_CERTIFICATE[certificate]}}
        info = self.id_token_info(session, payload["idToken"])
        return {"certificateStatus": "Accepted" if info["status"] == "Accepted" else "ContractCancelled",
                "idTokenInfo": info}

    async def certificate_status(self, payload: dict) -> str:
        """Accepted, or what makes the contract certificate not valid (a key of REFUSED_CERTIFICATE)."""
        run = contract_pki.for_run(self.profile)
        if payload.get("certificate"):
            try:
                chain = contract_pki.load_chain(payload["certificate"])
            except ValueError:
                return "CertChainError"
            problem = contract_pki.chain_problem(chain, [run.root.certificate])
            if problem:
                return problem
            items = [contract_pki.hash_data(chain[0], chain[1] if len(chain) > 1 else run.root.certificate)]
        else:
            items = payload["iso15118CertificateHashData"]
        trusted = [a.certificate for a in run.authorities]
        for item in items:
            if item.get("responderURL") != run.responder_url:   # nothing is fetched from outside the run
                return "CertChainError"
            try:
                request = contract_pki.ocsp_request(item)
            except (ValueError, KeyError):   # hashes or serial that are no hex: no certificate to ask about
                return "CertChainError"
            from harness.transport import ocsp   # httpx and uvicorn when a station asks, not for every simulated one
            answer = await ocsp.ask(item["responderURL"], request)
            status = contract_pki.ocsp_status(answer, item, trusted)
            if status != "good":
                return "CertificateRevoked" if status == "revoked" else "CertChainError"
        return "Accepted"
