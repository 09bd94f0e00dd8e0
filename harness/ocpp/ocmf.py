"""Signed meter values in the Open Charge Metering Format (OCMF), sans I/O: what a signing meter puts in an
OCPP 2.x ``signedMeterValue`` and how the harness checks one.

Facts used (the OCMF specification, published by S.A.F.E. e.V.; the official 2.x JSON schemas'
descriptions of SignedMeterValueType; OCPP 2.1's SigningMethodEnumStringType):
- an OCMF record is three sections joined by ``|``: the header ``OCMF``, the payload (a JSON object whose
  ``RD`` lists the readings: ``TM`` time, ``TX`` transaction point, ``RV`` value, ``RI`` identifier, ``RU`` unit,
  ``ST`` status) and the signature (a JSON object: ``SA`` algorithm, ``SE`` encoding of ``SD``, hex by default,
  ``SM`` mime type, DER by default, ``SD`` the signature);
- the signature is made over the payload section exactly as it stands in the record;
- OCPP carries the record Base64-encoded in ``signedMeterData``, with ``encodingMethod`` ``OCMF``, the algorithm in
  ``signingMethod`` and the meter's public key Base64-encoded in ``publicKey`` (here its DER SubjectPublicKeyInfo).
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

ENCODING = "OCMF"
# algorithm name -> its curve (every one with SHA-256), as the OCMF specification names them
CURVES: dict[str, type[ec.EllipticCurve]] = {
    "ECDSA-secp256r1-SHA256": ec.SECP256R1, "ECDSA-secp384r1-SHA256": ec.SECP384R1,
    "ECDSA-secp256k1-SHA256": ec.SECP256K1, "ECDSA-brainpool256r1-SHA256": ec.BrainpoolP256R1,
}
SIGNING_METHOD = "ECDSA-secp256r1-SHA256"
# ReadingContext -> OCMF's transaction point (TX): B begin, E end, T tariff or intermediate
POINT = {"Transaction.Begin": "B", "Transaction.End": "E"}


class SigningMeter:
    """A meter with its own P-256 key that signs each reading it gives."""

    def __init__(self) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        der = self.key.public_key().public_bytes(serialization.Encoding.DER,
                                                 serialization.PublicFormat.SubjectPublicKeyInfo)
        self.public_key = base64.b64encode(der).decode()

    def sign(self, wh: int, context: str, at: str, transaction_id: str | None = None) -> dict[str, Any]:
        """The ``signedMeterValue`` of the energy register reading ``wh`` taken at ``at``."""
        payload = {"FV": "1.0", "PG": "T1", "MS": "HARNESS-METER", "IS": transaction_id is not None,
                   "IT": "NONE", "RD": [{"TM": at, "TX": POINT.get(context, "T"), "RV": wh, "RI": "1-b:1.8.0",
                                         "RU": "Wh", "ST": "G"}]}
        if transaction_id is not None:
            payload["ID"] = transaction_id
        section = json.dumps(payload, separators=(",", ":"))
        signature = self.key.sign(section.encode(), ec.ECDSA(hashes.SHA256()))
        record = f"OCMF|{section}|" + json.dumps({"SA": SIGNING_METHOD, "SD": signature.hex()}, separators=(",", ":"))
        return {"signedMeterData": base64.b64encode(record.encode()).decode(), "signingMethod": SIGNING_METHOD,
                "encodingMethod": ENCODING, "publicKey": self.public_key}


@dataclass(frozen=True)
class Checked:
    """What checking one signedMeterValue found: ``problem`` None when its form is right; ``verified`` True or
    False when an OCMF ECDSA signature could be checked, None when it could not (another encoding, an
    algorithm outside ``CURVES``, no public key)."""
    problem: str | None
    verified: bool | None = None
    why: str = ""


def decode_b64(text: str) -> bytes | None:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None


def check(signed: dict[str, Any], public_key: str | None = None) -> Checked:
    """The form of ``signed`` (signedMeterData Base64; publicKey, when there, Base64) and, for an OCMF
    record signed with an ECDSA algorithm of ``CURVES``, its signature with its own publicKey (else
    ``public_key``, one sent earlier)."""
    data = decode_b64(signed.get("signedMeterData", ""))
    if not data:
        return Checked("signedMeterData is not Base64")
    key_text = signed.get("publicKey") or public_key
    if signed.get("publicKey") and decode_b64(signed["publicKey"]) is None:
        return Checked("publicKey is not Base64")
    if signed.get("encodingMethod", "").upper() != ENCODING:
        return Checked(None, None, f"encodingMethod {signed.get('encodingMethod')!r} is not checked")
    try:
        text = data.decode()
        header, section, tail = text.split("|", 2)
        signature = json.loads(tail)
        json.loads(section)
    except (UnicodeDecodeError, ValueError):
        return Checked("signedMeterData says OCMF but is not an OCMF record (OCMF|payload|signature)")
    if header != "OCMF" or not isinstance(signature, dict) or "SD" not in signature:
        return Checked("signedMeterData says OCMF but is not an OCMF record (OCMF|payload|signature)")
    algorithm = signature.get("SA") or signed.get("signingMethod")
    if algorithm not in CURVES or not key_text or signature.get("SM", "application/x-der") != "application/x-der":
        return Checked(None, None, f"algorithm {algorithm!r} or its key is not one the harness checks")
    try:
        sd = signature["SD"]
        raw = base64.b64decode(sd) if signature.get("SE", "hex").lower() == "base64" else bytes.fromhex(sd)
        key = serialization.load_der_public_key(decode_b64(key_text) or b"")
    except (ValueError, TypeError, binascii.Error):
        return Checked(None, False, "the signature or the public key cannot be decoded")
    if not isinstance(key, ec.EllipticCurvePublicKey) or not isinstance(key.curve, CURVES[algorithm]):
        return Checked(None, False, f"the public key is not a key of {algorithm}")
    try:
        key.verify(raw, section.encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        return Checked(None, False, "the signature does not verify over the payload with the public key")
    return Checked(None, True)
