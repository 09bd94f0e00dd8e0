"""Connections between two ends of one event loop, carried in memory.

In the embedded run both ends of every link (the harness's side and the stand-in SUT) live in one
``VirtualClockLoop``. Over a kernel socket their bytes cost two system calls a write, an epoll round a
read, and real time the clock cannot skip: a connect the kernel answers late, an ACK it delays, loopback
delivery deferred on a busy machine (``harness.clock``). A ``Loopback`` pair hands each write to the
other end's protocol on the loop's next turn instead, so both ends still speak the whole wire (the HTTP
upgrade, WebSocket framing and masking, HTTP/1.1 for OCPI and file transfers), every wire check sees
the same bytes, and the run no longer depends on how fast the kernel delivers them.

Only what a socket pair shows its protocols is kept: order, end of stream one way (``write_eof``) or
both (``close``), a reset (``abort``: the peer's ``connection_lost`` gets ``ConnectionResetError``),
flow control both ways (a reader that pauses makes its writer's buffer grow past the high-water mark
and pause the writer, as a full kernel buffer would), and the addresses (``peername``, ``sockname``).
TLS is not carried: a server or connect with ``ssl`` keeps its socket (the TLS tests judge the real
handshake). Nor is another process or thread: they reach the server's real socket, which stays open.
"""

from __future__ import annotations

import asyncio
import itertools
import socket
from collections.abc import Callable
from typing import Any

HIGH_WATER = 64 * 1024    # asyncio's default write buffer limits
_ports = itertools.count(49152)   # the client ends' ports: the dynamic range, as a kernel picks them


class LoopbackTransport(asyncio.Transport):
    """One end of a loopback pair: what its protocol writes reaches the other end's protocol, in order, on
    the loop's next turn."""

    def __init__(self, loop: asyncio.AbstractEventLoop, protocol: asyncio.BaseProtocol,
                 sockname: tuple[str, int], peername: tuple[str, int]):
        super().__init__()
        self._loop = loop
        self._protocol = protocol
        self._extra = {"sockname": sockname, "peername": peername, "socket": SocketView(sockname, peername),
                       "ssl_object": None}
        self.peer: LoopbackTransport | None = None
        self._inbox: list[bytes] = []      # bytes the peer wrote that this end's protocol has not received yet
        self._inbox_size = 0
        self._eof_in = False               # the peer wrote its end of stream
        self._delivering = False           # a delivery is scheduled
        self._reading = True
        self._closing = False
        self._lost = False
        self._writer_paused = False        # this end's protocol was told to pause writing
        self._high, self._low = HIGH_WATER, HIGH_WATER // 4

    # ------------------------------------------------------------------ asyncio.BaseTransport
    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self._extra.get(name, default)

    def is_closing(self) -> bool:
        return self._closing

    def close(self) -> None:
        """A socket's close: what was written is still delivered, then the peer sees the end of the stream."""
        if self._closing:
            return
        self._closing = True
        self._reading = False
        self._discard_inbox()
        if self.peer is not None:
            self.peer._receive_eof()
        self._loop.call_soon(self._lose, None)

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self._protocol = protocol

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self._protocol

    # ------------------------------------------------------------------ asyncio.ReadTransport
    def is_reading(self) -> bool:
        return self._reading and not self._closing

    def pause_reading(self) -> None:
        self._reading = False

    def resume_reading(self) -> None:
        if self._closing or self._reading:
            return
        self._reading = True
        self._schedule_delivery()

    # ------------------------------------------------------------------ asyncio.WriteTransport
    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        self._high = HIGH_WATER if high is None else high
        self._low = self._high // 4 if low is None else low

    def get_write_buffer_limits(self) -> tuple[int, int]:
        return self._low, self._high

    def get_write_buffer_size(self) -> int:
        """What this end wrote that the peer's protocol has not received: the peer's inbox."""
        return self.peer._inbox_size if self.peer is not None and not self.peer._lost else 0

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if self._closing or not data:
            return
        peer = self.peer
        if peer is None or peer._closing or peer._eof_in:
            return        # the other end closed: a kernel takes the bytes and the peer's answers them with a reset
        peer._inbox.append(bytes(data))
        peer._inbox_size += len(data)
        peer._schedule_delivery()
        if not self._writer_paused and self.get_write_buffer_size() > self._high:
            self._writer_paused = True
            self._protocol.pause_writing()   # type: ignore[attr-defined]

    def writelines(self, list_of_data) -> None:
        self.write(b"".join(list_of_data))

    def write_eof(self) -> None:
        if self._closing:
            return
        if self.peer is not None:
            self.peer._receive_eof()

    def can_write_eof(self) -> bool:
        return True

    def abort(self) -> None:
        """A reset: nothing more is delivered either way; the peer's protocol loses the connection with an error."""
        if self._lost:
            return
        self._closing = True
        self._discard_inbox()
        peer = self.peer
        if peer is not None and not peer._lost:
            peer._closing = True
            peer._discard_inbox()
            self._loop.call_soon(peer._lose, ConnectionResetError("the peer reset the loopback connection"))
        self._loop.call_soon(self._lose, None)

    # ------------------------------------------------------------------ delivery
    def _receive_eof(self) -> None:
        if not self._eof_in:
            self._eof_in = True
            self._schedule_delivery()

    def _schedule_delivery(self) -> None:
        if not self._delivering and not self._lost:
            self._delivering = True
            self._loop.call_soon(self._deliver)

    def _deliver(self) -> None:
        """What the peer wrote, as one chunk (a kernel may coalesce writes too), then its end of stream."""
        self._delivering = False
        if self._lost or not self._reading and not self._closing:
            return
        if self._inbox:
            data = b"".join(self._inbox)
            self._discard_inbox()
            if not self._closing:
                self._protocol.data_received(data)   # type: ignore[attr-defined]
        if self._eof_in and not self._inbox and not self._closing and not self._lost:
            keep_open = self._protocol.eof_received()   # type: ignore[attr-defined]
            if not keep_open:
                self.close()

    def _discard_inbox(self) -> None:
        """The inbox is emptied (received, or dropped by a close): the peer writes on if it was paused."""
        self._inbox.clear()
        self._inbox_size = 0
        peer = self.peer
        if peer is not None and peer._writer_paused and not peer._lost:
            peer._writer_paused = False
            peer._protocol.resume_writing()   # type: ignore[attr-defined]

    def _lose(self, error: Exception | None) -> None:
        if self._lost:
            return
        self._lost = True
        self._closing = True
        self._protocol.connection_lost(error)


class SocketView:
    """What a loopback end shows as its ``socket`` extra (as asyncio shows a ``TransportSocket``): its addresses
    and kind for the libraries that read them there (anyio); an option set on it means nothing in memory."""

    family, type, proto = socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP

    def __init__(self, sockname: tuple[str, int], peername: tuple[str, int]):
        self._sockname, self._peername = sockname, peername

    def getsockname(self) -> tuple[str, int]:
        return self._sockname

    def getpeername(self) -> tuple[str, int]:
        return self._peername

    def fileno(self) -> int:
        return -1

    def setsockopt(self, *args: Any) -> None:
        pass

    def getsockopt(self, *args: Any) -> int:
        return 0


def pair(loop: asyncio.AbstractEventLoop, client: asyncio.BaseProtocol, server: asyncio.BaseProtocol,
         address: tuple[str, int]) -> tuple[LoopbackTransport, LoopbackTransport]:
    """A connected pair: ``client``'s end and ``server``'s end of a connection to ``address``."""
    client_address = (address[0], next(_ports))
    near = LoopbackTransport(loop, client, client_address, address)
    far = LoopbackTransport(loop, server, address, client_address)
    near.peer, far.peer = far, near
    return near, far


class Listeners:
    """The servers of one loop that connects from the same loop reach in memory: (host, port) → the
    protocol factory of a plain (not TLS) server that is still serving."""

    LOCAL = {"127.0.0.1", "localhost", "::1"}

    def __init__(self) -> None:
        self._by_address: dict[tuple[str, int], tuple[Callable[[], asyncio.BaseProtocol], asyncio.Server]] = {}

    def add(self, server: asyncio.Server, factory: Callable[[], asyncio.BaseProtocol]) -> None:
        # the servers that stopped go first: a loop that runs on keeps nothing of them (their protocols, logs)
        self._by_address = {address: found for address, found in self._by_address.items() if found[1].is_serving()}
        for sock in server.sockets:
            host, port = sock.getsockname()[:2]
            hosts = self.LOCAL if host in ("0.0.0.0", "::") else {host} | ({"localhost"} if host in self.LOCAL else set())
            for name in hosts:
                self._by_address[name, port] = (factory, server)

    def find(self, host: str | None, port: int | None) -> Callable[[], asyncio.BaseProtocol] | None:
        if host is None or port is None:
            return None
        found = self._by_address.get((host, port))
        if found is None:
            return None
        factory, server = found
        if not server.is_serving():
            del self._by_address[host, port]
            return None
        return factory
