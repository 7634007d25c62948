"""Traffic through the loopback interface at a known rate, for the wire-bandwidth figures' tests."""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType


class Loopback:
    """Sends `rate` bytes/s over a TCP connection on 127.0.0.1 while in a `with` block; `sent_rate` is what
    it really sent, over its own clock."""

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.server = socket.create_server(("127.0.0.1", 0))
        self.done = threading.Event()
        self.sent = 0
        self.seconds = 0.0
        self.threads = [threading.Thread(target=self._sink, daemon=True), threading.Thread(target=self._send)]

    def __enter__(self) -> Loopback:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.done.set()
        self.threads[1].join()
        self.server.close()

    @property
    def sent_rate(self) -> float:
        return self.sent / self.seconds if self.seconds else 0.0

    def _sink(self) -> None:
        conn, _ = self.server.accept()
        with conn:
            while conn.recv(1 << 16):
                pass

    def _send(self) -> None:
        chunk = b"x" * 65536
        start = time.monotonic()
        with socket.create_connection(self.server.getsockname()) as out:
            while not self.done.is_set():
                if self.sent < self.rate * (time.monotonic() - start):
                    out.sendall(chunk)
                    self.sent += len(chunk)
                else:
                    time.sleep(0.002)
        self.seconds = time.monotonic() - start
