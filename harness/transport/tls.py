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


class RecordingContext(ssl.SSLContext):
    """An ``SSLContext`` whose TLS objects note every handshake that fails, and why (``refusals``), and count
    those that complete (``completed``): whether a peer took our certificate shows in the handshake's outcome,
    whatever happens to the connection after it."""

    refusals: Ledger[str]
    completed: int = 0
    on_refusal: Callable[[str], None] | None = None   # told each reason as it comes (the server's wire log)

    def failed(self, error: ssl.SSLError) -> None:
        reason = error.reason or str(error)
        self.refusals.append(reason)
        if self.on_refusal is not None:
            self.on_refusal(reason)


class _RecordingObject(ssl.SSLObject):
    def do_handshake(self) -> None:
        try:
            super().do_handshake()
        except (ssl.SSLWantReadError, ssl.SSLWantWriteError):
            raise
        except ssl.SSLError as error:
            self.context.failed(error)
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

    def server_context(self) -> RecordingContext:
        if self.certificate is None or self.key is None:
            raise ValueError("a TLS server needs its certificate and key")
        context = RecordingContext(ssl.PROTOCOL_TLS_SERVER)
        context.refusals = Ledger(REFUSALS_KEPT)
        context.sslobject_class = _RecordingObject
        self._common(context)
        if self.trust is not None:   # security profile 3: a client certificate from ``trust`` or no connection
            context.verify_mode = ssl.CERT_REQUIRED
            context.load_verify_locations(cafile=str(self.trust))
        return context

    def client_context(self) -> ssl.SSLContext:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        self._common(context)
        if self.trust is None:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        else:
            context.load_verify_locations(cafile=str(self.trust))
        return context

    def _common(self, context: ssl.SSLContext) -> None:
        lowest, highest = self.versions
        with warnings.catch_warnings():   # TLS 1.0/1.1 are deprecated: a test speaks them on purpose
            warnings.simplefilter("ignore", DeprecationWarning)
            if lowest < TLS12:   # OpenSSL 3 refuses TLS 1.0/1.1 at the default security level
                context.set_ciphers("DEFAULT:@SECLEVEL=0")
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
