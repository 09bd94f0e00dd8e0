"""What every interop adapter shares: the profile's tokens, a CALL started in the background (an action answers
when it is *started*, docs/actuators.md), and the entry point of examples/ocpp_lib_sut.py (the HTTP actuator,
SIGTERM handling, the "listening"/"stopped" lines), reused as it is.

An adapter maps the actuator contract onto the implementation's own API and nothing more: what the implementation
cannot do is answered 501 (the harness then skips the test as not applicable), never done by the adapter.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

import ocpp_lib_sut
from ocpp_lib_sut import Tasks  # noqa: F401
from starlette.responses import PlainTextResponse

def token_statuses(profile: dict) -> dict[str, str]:
    """idTag (upper case: 1.6 CiString, 2.x idTokens compare case-insensitively) → the status the profile says the
    CSMS answers: the provisioning a real deployment does in its database or admin pages."""
    return {token["id"].upper(): token["status"] for token in profile.get("tokens", {}).values()}


async def serve_until_stopped(app, port: int, stop: asyncio.Event, url: str, **options) -> None:
    """Serve the implementation's ASGI ``app`` with uvicorn on 127.0.0.1:``port``, say so (``url``), stop on ``stop``."""
    import uvicorn
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", **options))
    task = asyncio.create_task(server.serve())
    while not server.started and not task.done():
        await asyncio.sleep(0.02)
    print(f"CSMS listening on {url}", flush=True)
    await asyncio.wait([asyncio.create_task(stop.wait()), task], return_when=asyncio.FIRST_COMPLETED)
    server.should_exit = True
    await task


def actuator_app(sut, actions: tuple[str, ...]):
    """The example's actuator, and one more answer: an action the implementation cannot do for this body (it
    raises NotImplementedError, with why) is 501, so the test is not applicable rather than broken."""
    app = example_actuator_app(sut, actions)

    async def unsupported(request, error: Exception) -> PlainTextResponse:
        return PlainTextResponse(str(error) or "not supported by this implementation", status_code=501)

    app.add_exception_handler(NotImplementedError, unsupported)
    return app


example_actuator_app = ocpp_lib_sut.actuator_app
ocpp_lib_sut.actuator_app = actuator_app


def run(sut_class: Callable[[dict], Any], doc: str) -> None:
    """``python interop/<adapter>.py csms|cpo --port P --actuator-port A --profile profiles/interop-….toml``: the
    example's entry point, whose listening role is called csms (an OCPI platform listens too); ``cs --csms-url U``
    for a station, which connects."""
    argv = ["csms" if arg in ("cpo", "emsp") else arg for arg in sys.argv[1:]]
    asyncio.run(ocpp_lib_sut.main(argv, csms=sut_class, station=sut_class, doc=doc))
