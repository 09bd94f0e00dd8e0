"""A fuzz run against a reference started on its own, as a SUT on real ports (``python -m
harness.reference.csms|station|ocpi``): its process is started here, fuzzed, its memory sampled
(resident set size from /proc) after every chunk of frames or requests, and stopped with SIGTERM.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
from collections.abc import Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from websockets.asyncio.client import connect
from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed

from harness.errors import HarnessError
from harness.fuzz import ocpi as ocpi_fuzz
from harness.fuzz import ocpp as ocpp_fuzz
from harness.fuzz.schema_data import valid
from harness.ocpp import schemas
from harness.ocpp.versions import OcppVersion
from harness.reference.compose import references_for
from harness.reference.standalone import load_profile
from harness.transport.ws import basic_auth_header, station_url

START_TIMEOUT = 30.0
CHUNKS = 20          # memory samples over a run, one after each chunk
TOKEN_A = "fuzz-token-a-0123456789"
REPO = Path(__file__).resolve().parents[2]


@dataclass
class Report:
    """One run's numbers: what was sent, how many answers were wrong, memory and rate."""
    target: str
    tally: ocpp_fuzz.Tally
    rss: list[int] = field(default_factory=list)   # kB: before the first frame, after the warm-up, after each chunk
    reconnects: int = 0

    @property
    def baseline(self) -> int:
        """The resident set after the warm-up (a frame of every kind, every validator built)."""
        return self.rss[1]

    @property
    def growth(self) -> float:
        """The end's memory over the baseline, as a fraction (0.05: 5 % more)."""
        return self.rss[-1] / self.baseline - 1

    def summary(self) -> str:
        tally = self.tally
        lines = [f"{self.target}: {tally.frames} sent in {tally.seconds:.1f} s ({tally.frames / tally.seconds:.0f}/s), "
                 f"{tally.wrong} wrong answers, {self.reconnects} reconnects",
                 f"  RSS: {self.rss[0] / 1024:.1f} MB before, {self.baseline / 1024:.1f} MB after warm-up, "
                 f"{self.rss[-1] / 1024:.1f} MB at the end ({self.growth:+.1%}); peak {max(self.rss) / 1024:.1f} MB",
                 "  by kind: " + ", ".join(f"{kind} {n}" for kind, n in sorted(tally.by_fault.items()))]
        return "\n".join(lines + [f"  wrong: {example}" for example in tally.examples])


def rss_kb(pid: int) -> int:
    """The resident set size of process ``pid`` in kB (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise HarnessError(f"no VmRSS for process {pid}")


@asynccontextmanager
async def reference_process(module: str, *args: str, last: str):
    """``python -m module args`` on its own; yields (process, the ``name: URL`` lines it printed up to ``last``)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", module, *args, cwd=REPO, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL)
    try:
        urls: dict[str, str] = {}
        async with asyncio.timeout(START_TIMEOUT):
            while last not in urls:
                line = (await process.stdout.readline()).decode()
                if not line:
                    raise HarnessError(f"{module} ended before it printed {last!r}")
                name, _, url = line.strip().partition(": ")
                urls[name] = url
        yield process, urls
    finally:
        if process.returncode is None:
            process.terminate()
            try:
                await asyncio.wait_for(process.wait(), 10)
            except TimeoutError:
                process.kill()
                await process.wait()


def _answers(version: OcppVersion, rng: random.Random) -> Callable[[str, dict], dict]:
    """How the fuzzer answers the receiver's own CALLs: a valid payload, a boot always Accepted."""
    def answer(action: str, payload: dict) -> dict:
        if action == "BootNotification":
            return {"currentTime": "2024-05-01T12:00:00Z", "interval": 3600, "status": "Accepted"}
        return valid(schemas._schema(version, action, "response"), rng)
    return answer


async def _play(link_factory: Callable[[], Awaitable], frames: ocpp_fuzz.Frames, count: int, report: Report,
                answer, pid: int) -> None:
    """Play the warm-up, then ``count`` frames in ``CHUNKS`` chunks, sampling the receiver's memory before,
    after the warm-up and after each chunk; a link the receiver ends is counted wrong (with the frame
    that ended it) and opened again."""
    report.rss.append(rss_kb(pid))
    chunk = max(1, count // CHUNKS)
    parts = [frames.warm_up()] + [(frames.next() for _ in range(min(chunk, count - start)))
                                  for start in range(0, count, chunk)]
    link = await link_factory()
    for part in parts:
        try:
            await ocpp_fuzz.fuzz(link, frames.version, part, report.tally, answer)
        except ConnectionClosed as closed:
            report.tally.count_wrong(f"frame {report.tally.frames}", f"the receiver closed the link: {closed}")
            report.reconnects += 1
            link = await link_factory()
        report.rss.append(rss_kb(pid))
    await link.close()


async def fuzz_csms(version: OcppVersion, count: int, seed: int) -> Report:
    """The reference CSMS on its own, fuzzed by a station: a BootNotification first, then ``count`` frames."""
    rng = random.Random(seed)
    csms_cls, station_cls = references_for(version)
    profile = load_profile(None)
    station = station_cls(profile, version)
    frames = ocpp_fuzz.Frames(version, "csms", rng, takes=ocpp_fuzz.handled_actions(csms_cls),
                              others=ocpp_fuzz.handled_actions(station_cls))
    report = Report(f"reference CSMS {version.value}", ocpp_fuzz.Tally())
    answer = _answers(version, rng)
    async with reference_process("harness.reference.csms", "--version", version.value, last="actuator URL") \
            as (process, urls):
        async def open_link():
            headers = {}
            if station.password is not None:
                headers["Authorization"] = basic_auth_header(station.identity, station.password)
            link = await connect(station_url(urls["OCPP URL"], station.identity), subprotocols=[version.subprotocol],
                                 additional_headers=headers, max_size=None, ping_interval=None, compression=None)
            await link.send(json.dumps([2, "boot", "BootNotification", station.boot_payload()]))
            while json.loads(await asyncio.wait_for(link.recv(), START_TIMEOUT))[1] != "boot":
                pass
            return link
        await _play(open_link, frames, count, report, answer, process.pid)
    return report


async def fuzz_station(version: OcppVersion, count: int, seed: int) -> Report:
    """The reference station on its own, fuzzed by a CSMS it connects to (its boot answered Accepted)."""
    rng = random.Random(seed)
    csms_cls, station_cls = references_for(version)
    frames = ocpp_fuzz.Frames(version, "cs", rng, takes=ocpp_fuzz.handled_actions(station_cls),
                              others=ocpp_fuzz.handled_actions(csms_cls))
    report = Report(f"reference station {version.value}", ocpp_fuzz.Tally())
    answer = _answers(version, rng)
    links: asyncio.Queue = asyncio.Queue()

    async def accept(link) -> None:
        await links.put(link)
        await link.wait_closed()

    async with serve(accept, "127.0.0.1", 0, subprotocols=[version.subprotocol], max_size=None,
                     ping_interval=None, compression=None) as server:
        port = server.sockets[0].getsockname()[1]
        async with reference_process("harness.reference.station", "--version", version.value,
                                     "--csms-url", f"ws://127.0.0.1:{port}/ocpp", last="actuator URL") as (process, _):
            async def next_link():
                link = await asyncio.wait_for(links.get(), START_TIMEOUT)
                boot = json.loads(await asyncio.wait_for(link.recv(), START_TIMEOUT))
                await link.send(json.dumps([3, boot[1], answer(boot[2], boot[3])]))
                return link
            await _play(next_link, frames, count, report, answer, process.pid)
    return report


async def fuzz_ocpi(role: str, count: int, seed: int) -> Report:
    """The reference OCPI platform on its own, playing ``role`` (cpo or emsp), fuzzed with ``count`` requests."""
    report = Report(f"reference OCPI {role.upper()}", ocpp_fuzz.Tally())
    async with reference_process("harness.reference.ocpi", "--role", role, "--token-a", TOKEN_A,
                                 last="versions URL") as (process, urls):
        base = urls["versions URL"].removesuffix("/ocpi/versions")
        await ocpi_fuzz.play(base, TOKEN_A, random.Random(seed), count, report, lambda: rss_kb(process.pid),
                             chunks=CHUNKS)
    return report


TARGETS = {
    **{f"csms-{v.value}": partial(fuzz_csms, v) for v in OcppVersion},
    **{f"cs-{v.value}": partial(fuzz_station, v) for v in OcppVersion},
    "ocpi-cpo": lambda count, seed: fuzz_ocpi("cpo", count, seed),
    "ocpi-emsp": lambda count, seed: fuzz_ocpi("emsp", count, seed),
}

