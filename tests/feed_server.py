"""A feed server on 127.0.0.1 for the feed tests: ETags and 304s like a real one, 404 for
unknown paths; a body with or without its length declared."""

from __future__ import annotations

import hashlib
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.listing_cases import CASES

FEED = (CASES / "arxiv_rss_three.xml").read_bytes()


class FeedServer:
    def __init__(self) -> None:
        self.feeds: dict[str, bytes] = {"/rss/cs": FEED}
        self.requests: list[str] = []
        self.answered: list[tuple[str, int]] = []  # each request's path and status
        self.undeclared: set[str] = set()  # paths answered without a Content-Length
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                server.requests.append(self.path)  # before answering: the client may go on
                body = server.feeds.get(self.path)
                tag = f'"{hashlib.sha256(body).hexdigest()[:16]}"' if body else ""
                unchanged = body is not None and self.headers["If-None-Match"] == tag
                status = 404 if body is None else 304 if unchanged else 200
                server.answered.append((self.path, status))
                self.send_response(status)
                if body is None:  # the 404, asked of the body: mypy then knows it is bytes below
                    self.send_header("Content-Length", "0")
                elif status == 200:
                    self.send_header("ETag", tag)
                    if self.path not in server.undeclared:
                        self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if body is not None and status == 200:
                    self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.http.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.http.server_address[1]}"

    def stop(self) -> None:
        self.http.shutdown()
        self.http.server_close()
