"""A loopback HTTP server for WebFetch tests: real sockets, routes as a dict, no sleeps."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    #: Wait for this event before answering (a server that hangs until the test lets it go).
    hold: threading.Event | None = None


Routes = dict[str, Reply | Callable[[str], Reply]]


@contextmanager
def serve(routes: Routes) -> Iterator[tuple[int, list[str]]]:
    """Serve ``routes`` on 127.0.0.1; yields the port and the list of request lines seen."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        disable_nagle_algorithm = True  # or every response stalls ~40 ms (sdk-notes)

        def do_GET(self) -> None:
            seen.append(f"{self.command} {self.path} host={self.headers.get('Host')}")
            route = routes.get(self.path.split("?")[0])
            reply = (route(self.headers.get("Host", "")) if callable(route) else route) or Reply(404, b"not found")
            if reply.hold is not None:
                reply.hold.wait(10)
            self.send_response(reply.status)
            for key, value in reply.headers.items():
                self.send_header(key, value)
            if "Content-Length" not in reply.headers:
                self.send_header("Content-Length", str(len(reply.body)))
            self.end_headers()
            self.wfile.write(reply.body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    # a short poll interval only makes shutdown() return quickly at the end of a test
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], seen
    finally:
        for route in routes.values():
            if isinstance(route, Reply) and route.hold is not None:
                route.hold.set()
        server.shutdown()
        server.server_close()
