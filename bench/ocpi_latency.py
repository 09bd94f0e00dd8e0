"""How long the reference OCPI platform takes to answer one request, next to plain uvicorn serving the
same route with the same bytes (issue #16: it must be within 2x).

    python bench/ocpi_latency.py [--requests 2000] [--rounds 5]

Both servers run as processes of their own on 127.0.0.1: the reference as ``python -m
harness.reference.ocpi --role cpo`` (GET /ocpi/versions with token A: authentication, headers, the
envelope, the wire record), the plain one as a bare ASGI app that answers the reference's own answer
bytes. Rounds alternate between the two so that a busy machine weighs on both alike; each round sends
``--requests`` GETs on one keep-alive connection and the median and p90 of all rounds are printed, and
once more for a new connection per request. No number is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

import uvicorn

from harness.fuzz.ocpi import RawHttp, token_header
from harness.fuzz.run import TOKEN_A, reference_process

PLAIN = "plain-uvicorn"


def plain_server(port: int, body: bytes) -> None:
    """The comparison: uvicorn with an app that answers ``body`` to every request, nothing else."""
    async def app(scope, receive, send):
        if scope["type"] != "http":
            return
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False, lifespan="off")


async def _timed(port: int, requests: int, *, fresh: bool) -> list[float]:
    headers = {"Authorization": token_header(TOKEN_A), "X-Request-ID": "bench", "X-Correlation-ID": "bench"}
    client, times = RawHttp("127.0.0.1", port), []
    for _ in range(requests):
        started = time.perf_counter()   # a bench on the real clock, outside the harness
        status, _, _ = await client.request("GET", "/ocpi/versions", headers, b"")
        times.append(time.perf_counter() - started)
        if status != 200:
            raise SystemExit(f"GET /ocpi/versions answered {status} on port {port}")
        if fresh:
            await client.close()
    await client.close()
    return times


async def _listening(port: int, within: float = 60) -> None:
    for _ in range(int(within * 10)):
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.1)
        else:
            writer.close()
            return
    raise SystemExit(f"nothing listens on port {port} after {within:g} s")


def _line(name: str, times: list[float]) -> str:
    ordered = sorted(times)
    return (f"{name:>16}: median {statistics.median(ordered) * 1000:.3f} ms, "
            f"p90 {ordered[int(len(ordered) * 0.9)] * 1000:.3f} ms over {len(ordered)} requests")


async def main(requests: int, rounds: int) -> None:
    async with reference_process("harness.reference.ocpi", "--role", "cpo", "--token-a", TOKEN_A,
                                 last="versions URL") as (_, urls):
        reference_port = int(urls["versions URL"].split(":")[2].split("/")[0])
        headers = {"Authorization": token_header(TOKEN_A), "X-Request-ID": "bench", "X-Correlation-ID": "bench"}
        _, _, body = await RawHttp("127.0.0.1", reference_port).request("GET", "/ocpi/versions", headers, b"")
        plain_port = reference_port + 1
        plain = await asyncio.create_subprocess_exec(
            sys.executable, __file__, PLAIN, str(plain_port), body.decode(), env={**os.environ},
            cwd=Path(__file__).resolve().parents[1])
        try:
            await _listening(plain_port)
            print(f"load average {os.getloadavg()[0]:.1f}")
            for fresh in (False, True):
                measured: dict[str, list[float]] = {"reference": [], PLAIN: []}
                for _ in range(rounds):
                    measured["reference"] += await _timed(reference_port, requests, fresh=fresh)
                    measured[PLAIN] += await _timed(plain_port, requests, fresh=fresh)
                print("a new connection per request" if fresh else "one keep-alive connection")
                for name, times in measured.items():
                    print(_line(name, times))
                ratio = statistics.median(measured["reference"]) / statistics.median(measured[PLAIN])
                print(f"{'ratio':>16}: {ratio:.2f}x")
        finally:
            plain.terminate()
            await plain.wait()


if __name__ == "__main__":
    if sys.argv[1:2] == [PLAIN]:
        plain_server(int(sys.argv[2]), sys.argv[3].encode())
    else:
        parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
        parser.add_argument("--requests", type=int, default=2000)
        parser.add_argument("--rounds", type=int, default=5)
        options = parser.parse_args()
        asyncio.run(main(options.requests, options.rounds))
