"""CPU of one in-process OCPI request through the harness's HTTP layer (issue #26): ``HttpClient`` (httpx) to an
``asgi_app`` over the ``InProcessNetwork``, the headers a functional-module request carries, a small envelope back.
The handler does no work, so what is measured is the HTTP path alone (the client, the ASGI transport, Starlette).

    PYTHONPATH=$PWD python bench/ocpi_request_cpu.py            # 2,000 requests after 50 to warm up
"""

from __future__ import annotations

import asyncio
import sys
import time

from harness.transport.http import HttpClient, HttpRequest, HttpResponse, InProcessNetwork, asgi_app

BODY = b'{"data": [], "status_code": 1000, "timestamp": "2024-01-01T00:00:00Z"}'
HEADERS = {"Authorization": "Token abc", "X-Request-ID": "1", "X-Correlation-ID": "2", "OCPI-from-country-code": "NL",
           "OCPI-from-party-id": "HAR", "OCPI-to-country-code": "NL", "OCPI-to-party-id": "REF"}


async def answer(request: HttpRequest) -> HttpResponse:
    return HttpResponse(200, BODY, {"Content-Type": "application/json", "X-Request-ID": request.header("X-Request-ID")})


async def main(count: int) -> None:
    network = InProcessNetwork()
    url = network.add("sut", asgi_app(answer)) + "/ocpi/2.2.1/locations"
    client = HttpClient(transport=network)
    for _ in range(50):
        await client.request("GET", url, headers=HEADERS)
    started = time.process_time()
    for _ in range(count):
        await client.request("GET", url, headers=HEADERS)
    print(f"{(time.process_time() - started) / count * 1000:.3f} ms of CPU per in-process request ({count})")
    await client.close()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000))
