"""Before the first test of a run against a real system: can the harness reach the SUT, and listen
where the SUT reaches it? An unreachable SUT would otherwise break every test one by one, each with
its own traceback; the run stops at once instead, with one line naming the URL and the error.

The probe speaks the protocol, bounded in time and bytes: a WebSocket upgrade offering the run's subprotocol (TLS
for wss://), one GET of the OCPI versions URL. What stops the run is what no test could get past (nothing there,
plain HTTP, another version, an oversized answer, no common TLS version, an unverifiable certificate); a
refusal of the station's credentials is for the tests to report, with the profile setting to fix.
"""

from __future__ import annotations

import asyncio
import os
import re
import socket
import ssl
import time
from urllib.parse import urlsplit

import httpx
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import InvalidHandshake, InvalidMessage, InvalidStatus, SecurityError
from websockets.http11 import MAX_LINE_LENGTH as MAX_LINE
from websockets.http11 import MAX_NUM_HEADERS as MAX_HEADERS

from harness.settings import Settings
from harness.transport.ws import station_url

PROBE_TIMEOUT = 10.0   # seconds at most, whatever [timeouts] connect says: a probe, not a test
MAX_BODY = 2 ** 20     # bytes of the OCPI versions answer (or a WebSocket message) the probe reads at most
TLS_VERSION_REASONS = {"UNSUPPORTED_PROTOCOL", "TLSV1_ALERT_PROTOCOL_VERSION", "WRONG_SSL_VERSION",
                       "NO_PROTOCOLS_AVAILABLE", "VERSION_TOO_LOW"}   # OpenSSL's reasons for no common TLS version


def problem(settings: Settings) -> str | None:
    """Why the run cannot start against ``settings``' SUT, in one line with the fix; None when it can."""
    timeout = min(settings.profile.timeouts.connect, PROBE_TIMEOUT)
    trust = _trust(settings)
    if settings.sut == "csms":
        # probed where the harness's station connects (url + "/" + identity): a CSMS may route nothing else
        return _websocket_unreachable(settings.sut_url, timeout, trust, settings.protocol,
                                      station_url(settings.sut_url, settings.profile.identity))
    if settings.sut in ("cpo", "emsp"):
        return _http_unreachable(settings.sut_url, timeout, trust) or _cannot_listen(settings.listen)
    if settings.sut == "cs":
        return _cannot_listen(settings.listen)
    return None


def _trust(settings: Settings) -> ssl.SSLContext:
    """What the SUT's TLS certificate is verified against: [tls] sut_ca when given, else the system's store."""
    ca = settings.profile.tls_path("sut_ca")
    return ssl.create_default_context(cafile=str(ca) if ca is not None else None)


def _websocket_unreachable(url: str, timeout: float, trust: ssl.SSLContext, subprotocol: str,
                           probe: str | None = None) -> str | None:
    """A WebSocket upgrade at ``probe`` (the station's URL under ``url``) offering ``subprotocol``, without
    credentials (a refusal for want of them is for the tests to report, with the profile's setting): the run
    starts when the CSMS upgrades or refuses by HTTP."""
    secure = urlsplit(url).scheme.lower() == "wss"
    try:
        asyncio.run(_upgrade(probe or url, timeout, trust if secure else None, subprotocol))
    except InvalidStatus as refused:
        status = refused.response.status_code
        if status in (401, 403, 404):
            return None
        return (f"the CSMS under test at {url} answered the WebSocket upgrade with HTTP {status} and did not upgrade: "
                f"is it plain HTTP? give its OCPP WebSocket endpoint as --sut-url")
    except NoSubprotocol:
        return (f"the CSMS under test at {url} upgraded without the subprotocol {subprotocol}: it does not serve that "
                f"version there; check --protocol and --sut-url")
    except InvalidMessage as error:
        if isinstance(error.__cause__, SecurityError):
            return (f"the CSMS under test at {url} sent an oversized HTTP header in its answer ({error.__cause__}); "
                    f"the harness reads at most {MAX_LINE} bytes a line and {MAX_HEADERS} header lines")
        if secure:   # closed after TLS: in profile 3 it asks a client certificate the probe has not, for the tests
            return None
        return (f"the CSMS under test at {url} did not answer the WebSocket upgrade with valid HTTP "
                f"({error.__cause__ or error}); give its OCPP WebSocket endpoint as --sut-url")
    except ssl.SSLCertVerificationError as error:
        return (f"the CSMS under test at {url} serves a certificate the harness cannot verify: {error.verify_message}; "
                f"give the authority that signed it as [tls] sut_ca in the profile")
    except ssl.SSLError as error:
        if error.reason in TLS_VERSION_REASONS:
            return (f"the CSMS under test at {url} speaks no TLS version the harness accepts (TLS 1.2 or later; "
                    f"{error.reason}); enable TLS 1.2 or 1.3 at the CSMS")
        return None   # it speaks TLS: what it asks of a client (a certificate, in profile 3) is for the tests
    except (TimeoutError, OSError, InvalidHandshake) as error:
        legacy = _legacy_tls(url, timeout) if secure and isinstance(error, ConnectionResetError) else None
        if legacy is not None:   # it dropped our TLS 1.2+ hello: ask what it speaks, to say so
            return (f"the CSMS under test at {url} speaks no TLS version the harness accepts (TLS 1.2 or later; it "
                    f"speaks {legacy}); enable TLS 1.2 or 1.3 at the CSMS")
        if isinstance(error, TimeoutError) and _accepts_connections(url, timeout):
            stalled, fix = ("the TLS handshake", " and that it serves TLS there") if secure else ("the WebSocket upgrade", "")
            return (f"the CSMS under test at {url} accepted the connection but did not complete {stalled} within "
                    f"{timeout:g} s; check that --sut-url names its OCPP endpoint{fix}")
        return f"the CSMS under test is unreachable at {url}: {_reason(error, timeout)}; start it, or fix --sut-url"
    return None


def _legacy_tls(url: str, timeout: float) -> str | None:
    """The TLS version below 1.2 a server that dropped a TLS 1.2+ hello completes a handshake in, if any: a
    probe of what it speaks, never used for anything else (no certificate is checked, nothing is sent)."""
    parts = urlsplit(url)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    context.minimum_version, context.maximum_version = ssl.TLSVersion.TLSv1, ssl.TLSVersion.TLSv1_1
    context.set_ciphers("DEFAULT:@SECLEVEL=0")   # OpenSSL 3 refuses TLS 1.0/1.1 at the default level
    try:
        with socket.create_connection((parts.hostname, parts.port or 443), timeout=timeout) as raw, \
                context.wrap_socket(raw, server_hostname=parts.hostname) as tls:
            return tls.version()
    except (OSError, ssl.SSLError):
        return None


def _accepts_connections(url: str, timeout: float) -> bool:
    """Whether something accepts a TCP connection at ``url``'s host and port (a stall after it is not "unreachable")."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme.lower() == "wss" else 80)
    try:
        socket.create_connection((parts.hostname, port), timeout=timeout).close()
    except OSError:
        return False
    return True


class NoSubprotocol(Exception):
    """The upgrade completed without the offered subprotocol."""


async def _upgrade(url: str, timeout: float, tls: ssl.SSLContext | None, subprotocol: str) -> None:
    async with ws_connect(url, subprotocols=[subprotocol], ssl=tls, open_timeout=timeout, compression=None,
                          ping_interval=None, close_timeout=timeout, max_size=MAX_BODY) as ws:
        if ws.subprotocol != subprotocol:
            raise NoSubprotocol


def _http_unreachable(url: str, timeout: float, trust: ssl.SSLContext) -> str | None:
    """One GET of the versions URL, the whole answer within ``timeout`` seconds and ``MAX_BODY`` bytes, read as
    sent (no decompression: a small compressed body can be made to unpack to gigabytes)."""
    deadline = time.monotonic() + timeout
    try:
        with httpx.Client(timeout=timeout, verify=trust) as client, \
                client.stream("GET", url, headers={"Accept-Encoding": "identity"}) as answer:
            read = 0
            for chunk in answer.iter_raw():
                read += len(chunk)
                if read > MAX_BODY:
                    return (f"the OCPI platform under test at {url} sent a versions answer larger than {MAX_BODY:,} "
                            f"bytes; check --sut-url (its versions URL)")
                if time.monotonic() > deadline:
                    return (f"the OCPI platform under test at {url} did not finish its versions answer within "
                            f"{timeout:g} s; check --sut-url (its versions URL)")
    except httpx.RemoteProtocolError as error:   # something answered, not in HTTP the harness reads
        if "too long" in str(error):   # h11's words for a head past its buffer
            return (f"the OCPI platform under test at {url} sent an oversized HTTP header in its versions answer "
                    f"({error}); check --sut-url (its versions URL)")
        return (f"the OCPI platform under test at {url} did not answer with valid HTTP ({error}); check --sut-url "
                f"(its versions URL)")
    except httpx.HTTPError as error:
        return (f"the OCPI platform under test is unreachable at {url}: {_reason(error, timeout)}; start it, "
                f"or fix --sut-url (its versions URL)")
    return None


def _cannot_listen(listen: tuple[str, int]) -> str | None:
    host, port = listen
    try:
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)   # as the harness's servers do
            probe.bind((host, port))
    except OSError as error:
        return f"the harness cannot listen on {host}:{port}: {_reason(error, 0)}; free the port, or choose --listen"
    return None


def _reason(error: Exception, timeout: float) -> str:
    if isinstance(error, (TimeoutError, socket.timeout, httpx.TimeoutException)):
        return f"no answer within {timeout:g} s"
    if isinstance(error, OSError) and error.errno and not isinstance(error, ssl.SSLError):
        return os.strerror(error.errno)   # asyncio words it "Connect call failed (host, port)"
    return re.sub(r"^\[Errno -?\d+\] ", "", str(error)) or type(error).__name__
