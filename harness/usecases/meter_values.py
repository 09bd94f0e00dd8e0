"""Signed meter values (OCPP 2.x J01.FR.21, J02.FR.21), shared by J01 and J02: every sampledValue of a report
made while the SignReadings variable of its kind is true carries a signedMeterValue, Base64 as the schema
describes it; an OCMF record signed with ECDSA is verified with the meter's public key
(``harness/ocpp/ocmf.py``). The requirements, in our words: docs/requirements/J.md."""

from __future__ import annotations

from harness.ocpp import ocmf
from harness.roles import CS
from harness.rules import Rule, RuleTable, should
from harness.transport.ws import Exchange
from harness.verdict import require


class Signed(RuleTable, namespace="signed"):
    """The form of a signed meter value (OCPP 2.0.1 SignedMeterValueType; OCMF)."""
    form = should("OCPP 2.0.1 SignedMeterValueType signedMeterData, publicKey (Base64 encoded)",
                  "signedMeterData, and publicKey when sent, are Base64", by=CS)
    signature = should("OCMF (S.A.F.E. e.V.): the signature section signs the payload section; OCPP 2.x "
                       "SignedMeterValueType publicKey",
                       "an OCMF record signed with ECDSA verifies with the meter's public key", by=CS)


def check_signed(reports: list[Exchange], present: Rule) -> int:
    """Every sampledValue of ``reports`` carries a signedMeterValue (``present``), of the right form, and a
    verifiable signature verifies; returns how many signatures were verified."""
    key: str | None = None
    verified = 0
    for report in reports:
        for value in report.request.get("meterValue", []):
            for sample in value["sampledValue"]:
                signed = sample.get("signedMeterValue")
                require(signed is not None, present, "a sampledValue made while SignReadings is true carries no "
                        "signedMeterValue", expected="signedMeterValue", actual=sample)
                if signed is None:
                    continue
                key = signed.get("publicKey") or key
                checked = ocmf.check(signed, key)
                require(checked.problem is None, Signed.form, f"the signedMeterValue is malformed: {checked.problem}",
                        expected="Base64 signedMeterData and publicKey", actual=signed)
                require(checked.verified is not False, Signed.signature, f"the signed meter value does not verify: "
                        f"{checked.why}", expected="a signature that verifies", actual=signed)
                verified += bool(checked.verified)
    return verified
