"""TLS for the transports: the ``ssl`` contexts of OCPP security profiles 2 and 3 (OCPP-J over wss)
and of OCPI over HTTPS.

A ``TlsEnd`` is one end's TLS as paths and versions: its own certificate and key (a server's
certificate; a client certificate in profile 3), the authority it trusts for the peer's certificate,
and the TLS versions it speaks. It makes the server's or the client's context. The versions are
TLS 1.2 and later unless a test asks for older ones on purpose (``LEGACY``): those handshakes need
OpenSSL's security level 0, which the context then sets.

A server's context records why each refused handshake failed (``refusals``): asyncio only logs a
failed TLS handshake at debug level, and a test that judges a peer's TLS must read why its handshake
was refused (no certificate, one signed by an unknown authority, an old protocol version). It also
counts the handshakes that completed: a client that took the server's certificate completed one.

Cipher suites (OCPP 2.0.1 A00.FR.318/319 and A00.FR.421/422; the 1.6 security white paper A00.FR.317/318 and
A00.FR.421/422): a CSMS supports the four ``MANDATORY`` TLS 1.2 suites, a station at least the ECDSA pair or the
RSA pair. A server this module makes enables them all (``SERVED``: Python's own default leaves the static-RSA
pair out) and, given an ``extra`` certificate of the other key type, holds an RSA and an ECDSA certificate at
once, OpenSSL picking the one the negotiated suite needs. A client may offer a single suite (``ciphers``), and a
server reads what a client offered of the suites it enables (``offered``).
"""

from __future__ import annotations

import ssl
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from harness.transport.ledger import Ledger

TLS12 = ssl.TLSVersion.TLSv1_2
LEGACY = {"TLSv1.0": ssl.TLSVersion.TLSv1, "TLSv1.1": ssl.TLSVersion.TLSv1_1}   # what no profile allows
REFUSALS_KEPT = 100

# The TLS 1.2 cipher suites the texts name, IANA name -> OpenSSL name (module docstring).
ECDSA_128, ECDSA_256 = "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"
RSA_128, RSA_256 = "TLS_RSA_WITH_AES_128_GCM_SHA256", "TLS_RSA_WITH_AES_256_GCM_SHA384"
MANDATORY = {ECDSA_128: "ECDHE-ECDSA-AES128-GCM-SHA256", ECDSA_256: "ECDHE-ECDSA-AES256-GCM-SHA384",
             RSA_128: "AES128-GCM-SHA256", RSA_256: "AES256-GCM-SHA384"}
STATION_PAIRS = ((ECDSA_128, ECDSA_256), (RSA_128, RSA_256))   # a station supports one pair at least
# what a server made here enables for TLS 1.2: the forward-secret AEAD suites and the static-RSA pair
SERVED = "ECDHE+AESGCM:ECDHE+CHACHA20:" + ":".join(MANDATORY[name] for name in (RSA_128, RSA_256)) + ":!aNULL:!eNULL"


class RecordingContext(ssl.SSLContext):
    """An ``SSLContext`` whose TLS objects note every handshake that fails, and why (``refusals``), and count
    those that complete (``completed``): whether a peer took our certificate shows in the handshake's outcome,
    whatever happens to the connection after it."""

    refusals: Ledger[str]
    completed: int = 0
    on_refusal: Callable[[str], None] | None = None   # told each reason as it comes (the server's wire log)

    def wrap_bio(self, incoming: ssl.MemoryBIO, outgoing: ssl.MemoryBIO, server_side: bool = False,
                 server_hostname: str | None = None, session: ssl.SSLSession | None = None) -> ssl.SSLObject:
        wrapped = super().wrap_bio(incoming, outgoing, server_side, server_hostname, session)
        if isinstance(wrapped, _RecordingObject):
            wrapped.outgoing = outgoing
        return wrapped

    def failed(self, error: ssl.SSLError) -> None:
        reason = error.reason or str(error)
        self.refusals.append(reason)
        if self.on_refusal is not None:
            self.on_refusal(reason)


class _RecordingObject(ssl.SSLObject):
    """A server's TLS object that records its handshake's outcome, and lets its alert out before it fails: asyncio
    closes the transport on a failed handshake without sending what OpenSSL wrote, so a client would see a reset
    where the text has it read an alert (a TLS 1.0 server's protocol_version: A00.FR.316). A failure with an alert
    pending first asks for more input (asyncio then sends the alert), and is raised on the next call; the client
    closes on the alert."""
    outgoing: ssl.MemoryBIO | None = None
    failure: ssl.SSLError | None = None

    def do_handshake(self) -> None:
        if self.failure is not None:
            raise self.failure
        try:
            super().do_handshake()
        except (ssl.SSLWantReadError, ssl.SSLWantWriteError):
            raise
        except ssl.SSLError as error:
            self.context.failed(error)
            if self.outgoing is not None and self.outgoing.pending:
                self.failure = error
                raise ssl.SSLWantReadError("the alert goes out first") from error
            raise
        self.context.completed += 1


@dataclass(frozen=True)
class TlsEnd:
    """One end's TLS. ``trust``: the authority's certificate (PEM) it verifies the peer against; a
    server without it asks for no client certificate, a client without it verifies nothing (a test
    that must not verify, never a default). ``versions``: the lowest and highest TLS version it speaks."""
    certificate: Path | None = None
    key: Path | None = field(default=None, repr=False)
    trust: Path | None = None
    versions: tuple[ssl.TLSVersion, ssl.TLSVersion | None] = (TLS12, None)
    ciphers: str | None = None   # the OpenSSL cipher list for TLS 1.2 (None: a server's SERVED, a client's default)
    extra: tuple[tuple[Path, Path], ...] = field(default=(), repr=False)   # more (certificate, key): another key type
    subject: tuple[str | None, str | None] | None = None   # a server's (CN, O) a client certificate must name

    def server_context(self) -> RecordingContext:
        if self.certificate is None or self.key is None:
            raise ValueError("a TLS server needs its certificate and key")
        context = RecordingContext(ssl.PROTOCOL_TLS_SERVER)
        context.refusals = Ledger(REFUSALS_KEPT)
        context.sslobject_class = _RecordingObject
        self._common(context, self.ciphers or SERVED)
        for certificate, key in self.extra:
            context.load_cert_chain(str(certificate), str(key))
        if self.trust is not None:   # security profile 3: a client certificate from ``trust`` or no connection
            context.verify_mode = ssl.CERT_REQUIRED
            context.load_verify_locations(cafile=str(self.trust))
        return context

    def client_context(self) -> ssl.SSLContext:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        self._common(context, self.ciphers)
        if self.trust is None:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        else:
            context.load_verify_locations(cafile=str(self.trust))
        return context

    def _common(self, context: ssl.SSLContext, ciphers: str | None) -> None:
        lowest, highest = self.versions
        with warnings.catch_warnings():   # TLS 1.0/1.1 are deprecated: a test speaks them on purpose
            warnings.simplefilter("ignore", DeprecationWarning)
            if lowest < TLS12:   # OpenSSL 3 refuses TLS 1.0/1.1 at the default security level
                context.set_ciphers("DEFAULT:@SECLEVEL=0")
            elif ciphers is not None:
                context.set_ciphers(ciphers)
            context.minimum_version = lowest
            if highest is not None:
                context.maximum_version = highest
        if self.certificate is not None and self.key is not None:
            context.load_cert_chain(str(self.certificate), str(self.key))


def only(version: str) -> tuple[ssl.TLSVersion, ssl.TLSVersion]:
    """The versions of an end that speaks ``version`` ("TLSv1.0", "TLSv1.1") and nothing else."""
    return LEGACY[version], LEGACY[version]


def spoken(versions: tuple[ssl.TLSVersion, ssl.TLSVersion | None]) -> str:
    """``versions`` in words: "TLS 1.2 and later", "TLS 1.0 only"."""
    def name(version: ssl.TLSVersion) -> str:
        return {"TLSv1": "TLS 1.0"}.get(version.name, version.name.replace("TLSv1_", "TLS 1."))

    lowest, highest = versions
    if highest is None:
        return f"{name(lowest)} and later"
    return f"{name(lowest)} only" if lowest == highest else f"{name(lowest)} to {name(highest)}"


def can_offer(suite: str) -> bool:
    """Whether this process's OpenSSL can offer the TLS 1.2 suite ``suite`` (an IANA name of ``MANDATORY``)."""
    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT).set_ciphers(MANDATORY[suite])
    except ssl.SSLError:
        return False
    return True


def offered(ssl_object: ssl.SSLObject | None) -> frozenset[str] | None:
    """The ``MANDATORY`` suites (IANA names) a client offered a server made here, read off the server's end of a
    completed handshake (what the client offered of the suites the server enables); None without TLS."""
    if ssl_object is None:
        return None
    names = {name for name, _, _ in ssl_object.shared_ciphers() or ()}
    return frozenset(iana for iana, openssl in MANDATORY.items() if openssl in names)


def subject_problem(certificate: bytes | None, serial: str | None, operator: str | None) -> str | None:
    """Why a client certificate (DER) is not the station's whose serial number is ``serial`` and whose operator
    is ``operator`` (its CN and its O contain them: A00.FR.405, A00.FR.404), or None; a None part is not checked."""
    if certificate is None:
        return "no client certificate"
    from cryptography import x509                 # here: a load client, which checks no certificate, never pays
    from cryptography.x509.oid import NameOID     # for OpenSSL's bindings (tests/load/test_lean_imports.py)
    subject = x509.load_der_x509_certificate(certificate).subject
    for oid, wanted, what in ((NameOID.COMMON_NAME, serial, "CN (the station's serial number)"),
                              (NameOID.ORGANIZATION_NAME, operator, "O (the operator)")):
        names = [str(name.value) for name in subject.get_attributes_for_oid(oid)]
        if wanted is not None and not any(wanted in name for name in names):
            return f"the client certificate's {what} is {', '.join(names) or 'absent'}, not {wanted}"
    return None


def refusals(context: ssl.SSLContext | None) -> Iterator[str]:
    """Why the handshakes a server context refused failed, oldest first (none for another context)."""
    return iter(getattr(context, "refusals", ()))


def tls_failure(error: BaseException) -> str | None:
    """The TLS reason behind ``error`` (raised while opening a connection), or None when TLS is not why:
    an ``SSLError`` in its chain of causes, or a connection the server reset during the TLS handshake."""
    seen = error
    while seen is not None:
        if isinstance(seen, ssl.SSLError):
            return seen.reason or str(seen)
        seen = seen.__cause__ or seen.__context__
    return None
