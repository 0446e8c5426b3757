"""A local stand-in for ``POST /v1/messages`` on 127.0.0.1, for runs in another process (a
benchmark's ``bot run``, a test of a fresh interpreter): it answers every request with one fixed
streamed response and notes when each arrived and with which headers."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeMessagesApi:
    """``with FakeMessagesApi(body) as api:`` serves ``body`` (Server-Sent Events) at ``api.url``."""

    def __init__(self, body: bytes) -> None:
        arrivals: list[float] = []
        headers: list[dict[str, str]] = []
        self.arrivals = arrivals
        #: Each request's headers, names in lower case.
        self.headers = headers

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                if self.path.split("?")[0] == "/v1/messages":
                    arrivals.append(time.perf_counter())
                self.rfile.read(int(self.headers.get("content-length") or 0))
                headers.append({k.lower(): v for k, v in self.headers.items()})
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("request-id", "req_fake")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> FakeMessagesApi:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
