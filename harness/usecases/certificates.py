"""The renewal of a station's certificate, one dialogue for A02 (the CSMS asks, with TriggerMessage) and A03 (the
station starts it): the station sends its new public key as a certificate signing request (SignCertificate), the
CSMS answers and sends the signed certificate back (CertificateSigned), the station answers whether it took it.
The rows are this module's (namespace ``certificate``); docs/requirements/security.md gives their sources.

The harness's CSMS signs with the run's root (``harness.pki``); the harness's station makes a new EC P-256 key
for each request, keeps it in the run's PKI directory (never on the wire) and takes only a certificate for that
key, valid now, of the run's root. A CSMS under test signs with its own authority, which the harness cannot
know: it is judged on what the texts make checkable (PEM, the CSR's key, the type echoed).
"""

from __future__ import annotations

import base64
from collections.abc import Awaitable, Callable

from cryptography import x509

from harness import clock, pki
from harness.arena.ocpp import OcppArena
from harness.errors import NotApplicable
from harness.ocpp.answers import REFUSALS
from harness.ocpp.versions import OcppVersion
from harness.roles import CS, CSMS
from harness.rules import Rule, RuleTable, must, should
from harness.transport.ws import Exchange
from harness.usecases.operations import operate, status_of
from harness.verdict import check_equal, require, violated

WHITEPAPER = "OCPP 1.6 security whitepaper"   # the public white paper "Improved security for OCPP 1.6-J"


class Certificates(RuleTable, namespace="certificate"):
    """What a certificate renewal asks of both sides (A02, A03)."""
    csr_sent = must(f"{WHITEPAPER} A02.FR.02-03, A03.FR.02-03", "the station that renews its certificate sends "
                    "SignCertificate with its new public key", by=CS)
    csr_pem = must("OCPP 2.0.1 SignCertificateRequest.csr (schema: SHALL, RFC 2986, PEM); "
                   f"{WHITEPAPER} A02.FR.03", "the csr is a PEM certificate signing request (RFC 2986) signed "
                   "by the key it carries", by=CS)
    csr_names_station = should(f"OCPP 2.0.1 A00.FR.405 (tzi-OCTT TC_A_08_CSMS); {WHITEPAPER} A02.FR.13",
                               "the CSR's subject CN is the station's serial number (what the CSMS checks its "
                               "certificate against), its O the operator's name where the profile gives it", by=CS)
    csms_accepts = must(f"OCPP 2.0.1 A02.FR.11 (tzi-OCTT TC_A_11_CSMS); {WHITEPAPER} A02.FR.11, A03.FR.11",
                        "a CSMS answers a well-formed signing request Accepted", by=CSMS)
    csms_rejects = must(f"{WHITEPAPER} A02.FR.12, A03.FR.12", "a CSMS answers Rejected a signing request it "
                        "cannot process: not a CSR, or one whose signature its own key does not verify", by=CSMS)
    signed_sent = must(f"{WHITEPAPER} A02, A03 remarks (the authority SHALL sign a correct CSR and the CSMS "
                       "returns it in CertificateSigned); tzi-OCTT TC_A_11_CSMS",
                       "after accepting the CSR the CSMS sends CertificateSigned", by=CSMS)
    chain_pem = must("OCPP 2.0.1 A00.FR.507 (tzi-OCTT TC_A_04_CSMS); CertificateSignedRequest.certificateChain",
                     "the certificateChain is PEM-encoded X.509, the station's certificate first", by=CSMS)
    chain_key = must(f"{WHITEPAPER} A02, A03 remarks (the CSR is what is signed)",
                     "the signed certificate carries the public key of the station's CSR", by=CSMS)
    chain_valid = should(f"{WHITEPAPER} A02.FR.06 (the station checks it, so it must be)",
                         "the signed certificate is valid now", by=CSMS)
    type_echoed = should("OCPP 2.0.1 A02.FR.14 (RECOMMENDED; tzi-OCTT TC_A_11_CSMS)",
                         "CertificateSigned names the certificateType of the signing request", by=CSMS)
    valid_taken = should(f"{WHITEPAPER} A02.FR.06, A02.FR.08 (no SHALL makes it accept)",
                         "a station takes a valid certificate for its key from its operator's authority: "
                         "CertificateSigned Accepted", by=CS)
    invalid_refused = must(f"{WHITEPAPER} A02.FR.06-07, A03.FR.06-07",
                           "a station answers Rejected a certificate that is expired, of another authority, or "
                           "not for the key of its request, and discards it", by=CS)
    invalid_reported = must(f"{WHITEPAPER} A02.FR.07, A03.FR.07 (2.x names the event "
                            "InvalidChargingStationCertificate)", "a station that discards a certificate reports "
                            "the security event InvalidChargingStationCertificate (1.6: InvalidChargePointCertificate)",
                            by=CS)


SIGN_TRIGGERS = ("SignChargingStationCertificate", "SignV2GCertificate", "SignCombinedCertificate")   # 2.x


def sign_trigger(arena: OcppArena, message: str = SIGN_TRIGGERS[0]) -> tuple[str, dict]:
    """The CSMS's request for a renewal: 2.x TriggerMessage ``message`` (the station's certificate, its V2G
    certificate, or one for both); 1.6 the security extension's ExtendedTriggerMessage SignChargePointCertificate (no
    connectorId: tzi-OCTT TC_074_CSMS step 1)."""
    if arena.version is OcppVersion.V16:
        return "ExtendedTriggerMessage", {"requestedMessage": "SignChargePointCertificate"}
    return "TriggerMessage", {"requestedMessage": message}


def invalid_certificate_event(arena: OcppArena) -> str:
    return "InvalidChargePointCertificate" if arena.version is OcppVersion.V16 else "InvalidChargingStationCertificate"


async def ask_renewal(arena: OcppArena, trigger_row: Rule | None, message: str = SIGN_TRIGGERS[0]) -> None:
    """The CSMS's trigger (judged by ``trigger_row``; 1.6: the general rows of its operations); a station that
    does not renew on request (Rejected, NotImplemented) makes the test not applicable."""
    action, payload = sign_trigger(arena, message)
    exchange = await operate(arena, action, payload, trigger_row)
    if status_of(exchange) != "Accepted":
        raise NotApplicable(f"the station answered {action} {payload['requestedMessage']} {status_of(exchange)!r}: "
                            "it does not renew its certificate on request")


async def renewed(arena: OcppArena, start: Callable[[], Awaitable[object]]) -> None:
    """A renewal from ``start`` to the end: the station under test takes the harness's valid certificate."""
    _, signed = await renewal(arena, start)
    if arena.is_sut(CS):
        check_equal(Certificates.valid_taken, "CertificateSigned answer status", "Accepted", status_of(signed))


async def invalid_refused(arena: OcppArena, broken: str, trigger_row: Rule | None) -> None:
    """The harness's CSMS answers the CSR with a ``broken`` certificate (signed_certificate): Rejected and reported."""
    arena.configure(signed_certificate=broken)
    _, signed = await renewal(arena, lambda: ask_renewal(arena, trigger_row))
    check_equal(Certificates.invalid_refused, f"CertificateSigned answer status ({broken} certificate)", "Rejected",
                status_of(signed))
    event = invalid_certificate_event(arena)
    await arena.expect("SecurityEventNotification", sender=CS, after=arena.mark_after(signed),
                       rule=Certificates.invalid_reported, where=lambda payload: payload.get("type") == event)


def unusable_csr(kind: str) -> str:
    """A CSR a CSMS cannot process: PEM armour around bytes that are no CSR, or a CSR whose signature was altered
    (its key does not verify it)."""
    if kind == "not_a_csr":
        return "-----BEGIN CERTIFICATE REQUEST-----\n" + base64.b64encode(b"no request" * 8).decode() + \
               "\n-----END CERTIFICATE REQUEST-----\n"
    der = bytearray(base64.b64decode("".join(pki.make_csr(pki.new_key(), "CS-FORGED").splitlines()[1:-1])))
    der[-1] ^= 0x01   # the signature's last byte
    body = base64.b64encode(bytes(der)).decode()
    lines = "\n".join(body[i:i + 64] for i in range(0, len(body), 64))
    return f"-----BEGIN CERTIFICATE REQUEST-----\n{lines}\n-----END CERTIFICATE REQUEST-----\n"


async def unusable_rejected(arena: OcppArena, kind: str) -> None:
    """The harness's station sends a SignCertificate whose csr is ``kind`` of unusable: Rejected."""
    payload = {"csr": unusable_csr(kind)}
    if arena.version is not OcppVersion.V16:
        payload["certificateType"] = "ChargingStationCertificate"
    exchange = await arena.exchange(CS, "SignCertificate", payload)
    check_equal(Certificates.csms_rejects, f"SignCertificate answer status ({kind})", "Rejected", status_of(exchange))


def judge_csr(arena: OcppArena, sign: Exchange) -> x509.CertificateSigningRequest:
    """The station's CSR, judged when the station is the SUT; its parsed form."""
    csr = sign.request["csr"]
    problem = pki.csr_problem(csr)
    if problem is not None:
        violated(Certificates.csr_pem, "SignCertificateRequest.csr is no usable CSR", expected="a PEM CSR signed "
                 "by its own key", actual=problem)
    parsed = x509.load_pem_x509_csr(csr.encode())
    if arena.is_sut(CS):
        names = {a.oid: a.value for a in parsed.subject}
        check_equal(Certificates.csr_names_station, "CSR subject CN", arena.profile.serial_number,
                    names.get(x509.NameOID.COMMON_NAME))
        operator = arena.profile.get("tls.operator")
        if operator:
            check_equal(Certificates.csr_names_station, "CSR subject O", operator,
                        names.get(x509.NameOID.ORGANIZATION_NAME))
    return parsed


def judge_chain(sign: Exchange, signed: Exchange, csr: x509.CertificateSigningRequest) -> None:
    """A CSMS under test's CertificateSigned: PEM, for the CSR's key, valid now, its type echoed."""
    try:
        leaf = pki.load_chain(signed.request["certificateChain"])[0]
    except ValueError as error:
        violated(Certificates.chain_pem, "CertificateSignedRequest.certificateChain is not PEM X.509",
                 expected="PEM certificates, leaf first", actual=str(error))
    require(pki.same_public_key(leaf.public_key(), csr.public_key()), Certificates.chain_key,
            "the signed certificate is for another key", expected="the CSR's public key",
            actual=f"a certificate of {leaf.subject.rfc4514_string()}")
    now = clock.utcnow()
    require(leaf.not_valid_before_utc <= now <= leaf.not_valid_after_utc, Certificates.chain_valid,
            "the signed certificate is not valid now", expected=f"valid at {now:%Y-%m-%dT%H:%M}Z",
            actual=f"{leaf.not_valid_before_utc:%Y-%m-%dT%H:%M}Z to {leaf.not_valid_after_utc:%Y-%m-%dT%H:%M}Z")
    if "certificateType" in sign.request:
        check_equal(Certificates.type_echoed, "CertificateSignedRequest certificateType",
                    sign.request["certificateType"], signed.request.get("certificateType"))


async def renewal(arena: OcppArena, start: Callable[[], Awaitable[object]]) -> tuple[Exchange, Exchange]:
    """``start`` makes the station request a certificate; the SignCertificate and CertificateSigned exchanges
    that follow, each judged on the SUT's side (the CSR of a station under test; the answer and the chain of a
    CSMS under test). What a station answers to CertificateSigned the caller judges."""
    mark = arena.mark()
    await start()
    sign = await arena.expect("SignCertificate", sender=CS, after=mark, rule=Certificates.csr_sent)
    csr = judge_csr(arena, sign) if arena.is_sut(CS) else x509.load_pem_x509_csr(sign.request["csr"].encode())
    if arena.is_sut(CSMS):
        check_equal(Certificates.csms_accepts, "SignCertificateResponse status", "Accepted",
                    (sign.result or {}).get("status"))
    signed = await arena.expect("CertificateSigned", sender=CSMS, after=arena.mark_after(sign),
                                rule=Certificates.signed_sent)
    if arena.is_sut(CSMS):
        judge_chain(sign, signed, csr)
    return sign, signed


class SecurityEvents(RuleTable, namespace="secevent"):
    """A04 and the 1.6 extension's security events (the same in every version)."""
    reported = must(f"{WHITEPAPER} A04.FR.01 (A04 of OCPP 2.0.1)", "a station reports a critical security event "
                    "with SecurityEventNotification naming the event's type", by=CS)
    confirmed = must(f"{WHITEPAPER} A04.FR.03 (A04 of OCPP 2.0.1)", "the CSMS confirms a SecurityEventNotification "
                     "with its answer", by=CSMS)
    queued = must(f"{WHITEPAPER} A04.FR.02 (A04 of OCPP 2.0.1)", "a critical security event that happens while the "
                  "station has no connection is queued and reported once it is connected again", by=CS)


async def security_event_offline(arena: OcppArena, kind: str = "TamperDetectionActivated") -> None:
    """A04.FR.02 (SUT = station): the connection is lost, the event happens, the connection is back: the station
    reports it then, on the new connection."""
    connections, mark = arena.connections(), arena.mark()
    await arena.cut()
    cut_at = arena.link_number()
    await arena.act(CS, "security_event", type=kind)
    await arena.restore()
    if await arena.reconnected(connections) is None:
        arena.silent(SecurityEvents.queued, "a new connection", arena.timeouts.connect, "after the outage ended")
    exchange = await arena.expect("SecurityEventNotification", sender=CS, after=0, rule=SecurityEvents.queued,
                                  where=lambda payload: payload.get("type") == kind)
    require(not arena.sent("SecurityEventNotification", sender=CS, after=mark, on=cut_at), SecurityEvents.queued,
            "the station sent the event on the connection that was cut", expected="a report once connected again",
            actual="a report on the cut connection")
    check_equal(SecurityEvents.queued, "SecurityEventNotification type (reported after the outage)", kind,
                exchange.request.get("type"))


async def security_event(arena: OcppArena, kind: str = "SettingSystemTime", tech_info: str | None = None) -> None:
    """A04 (and its 1.6 counterpart): a security event of ``kind`` happens at the station (the actuator action
    security_event: its clock set, by default), the station reports it, the CSMS confirms it (a CALLERROR other
    than a refusal of the message breaks that; a refusal makes the test not applicable)."""
    reported, confirmed = SecurityEvents.reported, SecurityEvents.confirmed
    now = clock.utcnow().isoformat(timespec="seconds").replace("+00:00", "Z")
    extra = {"techInfo": tech_info} if tech_info else {}
    exchange = await arena.exchange(CS, "SecurityEventNotification", {"type": kind, "timestamp": now} | extra,
                                    trigger=("security_event", {"type": kind} | ({"tech_info": tech_info} if tech_info
                                                                                 else {})), rule=reported)
    if arena.is_sut(CS):
        check_equal(reported, "SecurityEventNotification type", kind, exchange.request.get("type"))
        return
    if exchange.error is not None and exchange.error.code not in REFUSALS:
        violated(confirmed, "the CSMS answered the notification with a CALLERROR",
                 expected="its SecurityEventNotification answer", actual=exchange.error)
    require(isinstance(exchange.result, dict), confirmed, "the CSMS did not confirm the notification",
            expected="its SecurityEventNotification answer", actual=exchange.result)
