"""What every reference needs to run on its own, as a SUT on real ports (``python -m
harness.reference.csms``, ``...station``, ``...ocpi``): the profile it plays, the http actuator
contract (docs/actuators.md) over its actions, and a clean stop on SIGINT or SIGTERM.

The actuator is Starlette served by uvicorn (``HttpServer``) in the reference's own event loop, so
an action is the reference's ``perform`` coroutine, as in the embedded run.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from collections.abc import Awaitable, Callable

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route

from harness import profile as profiles
from harness.pki import EC, VALID, harness_pki
from harness.transport.tls import TlsEnd
from harness.errors import HarnessError, NotApplicable
from harness.reference.common import Actions
from harness.transport.http import HttpServer

ACTUATOR_PATH = "/actuator"


def set_up_tls(reference: Actions, profile: profiles.Profile, *, server_names: tuple[str, ...] = ()) -> None:
    """At [station] security_profile 2 or 3 the reference serves (``server_names``: a CSMS) or connects over
    wss, with certificates from the profile's [tls] harness_pki: a harness run with the same profile and
    [tls] sut_ca = <harness_pki>/root.pem verifies them, and the reference trusts the harness's."""
    security_profile = profile.security_profile
    if security_profile < 2:
        return
    reference.use_tls(reference_tls(profile, security_profile >= 3, server_names), security_profile)


def reference_tls(profile: profiles.Profile, mutual: bool, server_names: tuple[str, ...] = ()) -> TlsEnd:
    """A reference's TLS end, as a vendor sets a SUT up, certificates from the profile's [tls] harness_pki, which
    it trusts: a CSMS's (``server_names``) serves an RSA and an ECDSA certificate (every mandatory cipher suite)
    and in profile 3 (``mutual``) admits a client certificate that names the station's serial number and operator
    alone (A00.FR.404-405); a station's presents its client certificate in profile 3."""
    pki = harness_pki(profile.tls_path("harness_pki"))
    if server_names:
        return TlsEnd(*pki.server(VALID, server_names), trust=pki.root_path if mutual else None,
                      extra=(pki.server(VALID, server_names, kind=EC),),
                      subject=(profile.serial_number, profile.get("tls.operator")) if mutual else None)
    own = pki.client(VALID, profile.serial_number, profile.get("tls.operator")) if mutual else (None, None)
    return TlsEnd(*own, trust=pki.root_path)


STANDALONE_PROFILE = profiles.BUILTIN + "standalone"   # what a reference run on its own plays by default


def load_profile(path: str | None) -> profiles.Profile:
    """The profile the reference plays: ``path`` (a file or ``builtin:NAME``), else the built-in
    standalone profile, which the harness run against it is given too (``--sut-profile builtin:standalone``)."""
    return profiles.load(path or STANDALONE_PROFILE)


async def until_stopped() -> None:
    """Return on SIGINT or SIGTERM."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()


def actuator_app(reference: Actions) -> Starlette:
    """``POST /actuator/{action}`` with the action's JSON body: 200 once the action started; 501 for an
    action this reference does not implement (the harness skips the test); 409 when it cannot act now
    (no station connected); 500 when the action failed (the harness calls the test broken)."""

    async def act(request: Request):
        action = request.path_params["action"]
        if action not in reference.supported_actions():
            return PlainTextResponse(f"{action} is not an action of this reference", status_code=501)
        try:
            body = await request.json() if await request.body() else {}
            await reference.perform(action, body)
        except NotApplicable as error:
            return PlainTextResponse(str(error), status_code=501)
        except LookupError as error:
            return PlainTextResponse(str(error).strip("'\""), status_code=409)
        except Exception as error:   # the harness shows this answer with its broken verdict
            return PlainTextResponse(f"{action} failed: {error}", status_code=500)
        return JSONResponse({"action": action, "status": "started"})

    return Starlette(routes=[Route(ACTUATOR_PATH + "/{action}", act, methods=["POST"])])


def arguments(prog: str, doc: str, *, version: bool = True) -> argparse.ArgumentParser:
    """The options every standalone OCPP reference takes; the caller adds its own."""
    parser = argparse.ArgumentParser(prog=prog, description=doc.split("\n\n")[0])
    if version:
        parser.add_argument("--version", required=True, choices=("ocpp1.6", "ocpp2.0.1", "ocpp2.1"),
                            help="the OCPP version to speak")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--actuator-port", type=int, default=0,
                        help="port of the http actuator (default 0: any free port)")
    parser.add_argument("--profile", help="TOML profile of the system played, a file or builtin:NAME (default: "
                                          "builtin:standalone; give the harness the same --sut-profile)")
    return parser


async def serve(reference: Actions, host: str, actuator_port: int, urls: dict[str, str], *,
                stop: Callable[[], Awaitable[None]], keep: Callable[[], Awaitable[None]] | None = None) -> None:
    """Serve ``reference``'s actuator, print ``urls`` and the actuator URL (one ``name: URL`` line each,
    the actuator's last: a caller may wait for it), run ``keep`` alongside until SIGINT or SIGTERM,
    then ``stop`` the reference."""
    server = await HttpServer(actuator_app(reference), host, actuator_port).start()
    kept = asyncio.create_task(keep()) if keep is not None else None
    try:
        for name, url in {**urls, "actuator URL": server.url + ACTUATOR_PATH}.items():
            print(f"{name}: {url}", flush=True)
        await until_stopped()
    finally:
        if kept is not None:
            kept.cancel()
            await asyncio.gather(kept, return_exceptions=True)
        await stop()
        await server.stop()


def run(main: Callable[[], Awaitable[None]]) -> int:
    """Run ``main`` until it returns; a HarnessError (a bad profile, a port in use) is one line and exit 2."""
    try:
        asyncio.run(main())
    except HarnessError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0
