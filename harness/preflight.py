"""Before the first test of a run against a real system: can the harness reach the SUT, and listen
where the SUT reaches it? An unreachable SUT would otherwise break every test one by one, each with
its own traceback; the run stops at once instead, with one line naming the URL and the error.

Only the transport is probed (a TCP connection, TLS for wss://, one GET of the OCPI versions URL):
whatever the SUT answers is for the tests to judge.
"""

from __future__ import annotations

import re
import socket
import ssl
from urllib.parse import urlsplit

import httpx

from harness.settings import Settings

PROBE_TIMEOUT = 10.0   # seconds at most, whatever [timeouts] connect says: a probe, not a test


def problem(settings: Settings) -> str | None:
    """Why the run cannot start against ``settings``' SUT, in one line with the fix; None when it can."""
    timeout = min(settings.profile.timeouts.connect, PROBE_TIMEOUT)
    trust = _trust(settings)
    if settings.sut == "csms":
        return _websocket_unreachable(settings.sut_url, timeout, trust)
    if settings.sut in ("cpo", "emsp"):
        return _http_unreachable(settings.sut_url, timeout, trust) or _cannot_listen(settings.listen)
    if settings.sut == "cs":
        return _cannot_listen(settings.listen)
    return None


def _trust(settings: Settings) -> ssl.SSLContext:
    """What the SUT's TLS certificate is verified against: [tls] sut_ca when given, else the system's store."""
    ca = settings.profile.tls_path("sut_ca")
    return ssl.create_default_context(cafile=str(ca) if ca is not None else None)


def _websocket_unreachable(url: str, timeout: float, trust: ssl.SSLContext) -> str | None:
    parts = urlsplit(url)
    secure = parts.scheme.lower() == "wss"
    port = parts.port or (443 if secure else 80)
    try:
        with socket.create_connection((parts.hostname, port), timeout=timeout) as connection:
            if secure:
                trust.wrap_socket(connection, server_hostname=parts.hostname).close()
    except ssl.SSLCertVerificationError as error:
        return (f"the CSMS under test at {url} serves a certificate the harness cannot verify: {error.verify_message}; "
                f"give the authority that signed it as [tls] sut_ca in the profile")
    except ssl.SSLError:   # it speaks TLS: what it asks of a client (a certificate, in profile 3) is for the tests
        return None
    except OSError as error:
        return f"the CSMS under test is unreachable at {url}: {_reason(error, timeout)}; start it, or fix --sut-url"
    return None


def _http_unreachable(url: str, timeout: float, trust: ssl.SSLContext) -> str | None:
    try:
        httpx.get(url, timeout=timeout, verify=trust)
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
    if isinstance(error, OSError) and error.strerror and not isinstance(error, ssl.SSLError):
        return error.strerror
    return re.sub(r"^\[Errno -?\d+\] ", "", str(error)) or type(error).__name__
