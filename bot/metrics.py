"""`/healthz` and `/metrics` (Prometheus text format) on `metrics.port`, for the operator."""

from __future__ import annotations

import asyncio
import logging

from sqlalchemy.exc import SQLAlchemyError

from bot import service
from bot.store import Database

log = logging.getLogger(__name__)


def render_metrics(status: service.StoreStatus) -> str:
    lines = [
        "# HELP paperbot_papers Papers stored.",
        "# TYPE paperbot_papers gauge",
        f"paperbot_papers {status.papers}",
        "# HELP paperbot_filters Filters kept by all chats.",
        "# TYPE paperbot_filters gauge",
        f"paperbot_filters {status.filters}",
        "# HELP paperbot_chats Chats by state.",
        "# TYPE paperbot_chats gauge",
        *(f'paperbot_chats{{state="{s}"}} {n}' for s, n in sorted(status.chats.items())),
        "# HELP paperbot_deliveries Delivery ledger rows by status.",
        "# TYPE paperbot_deliveries gauge",
        *(f'paperbot_deliveries{{status="{s}"}} {n}' for s, n in sorted(status.deliveries.items())),
        "# HELP paperbot_listing_files Listing files and feed contents by outcome.",
        "# TYPE paperbot_listing_files gauge",
        *(f'paperbot_listing_files{{status="{s}"}} {n}' for s, n in sorted(status.files.items())),
    ]
    return "\n".join(lines) + "\n"


async def _answer(database: Database, path: str) -> tuple[str, str]:
    if path not in ("/healthz", "/metrics"):
        return "404 Not Found", "not found: try /healthz or /metrics\n"
    try:
        status = await asyncio.to_thread(service.store_status, database)
    except (SQLAlchemyError, OSError) as error:  # the database is down: what /healthz is for
        log.warning("health check: %s", error)
        return "503 Service Unavailable", f"database unavailable: {type(error).__name__}\n"
    return "200 OK", "ok\n" if path == "/healthz" else render_metrics(status)


async def serve_metrics(database: Database, port: int, host: str = "0.0.0.0") -> asyncio.Server:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = (await reader.readline()).decode("latin-1").split()
            while (await reader.readline()).strip():
                pass  # the headers: nothing in them matters here
            path = request[1].split("?", 1)[0] if len(request) > 1 else "/"
            status, body = await _answer(database, path)
            data = body.encode()
            writer.write(
                f"HTTP/1.1 {status}\r\nContent-Type: text/plain; version=0.0.4\r\n"
                f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n".encode()
                + data
            )
            await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, host, port)
    log.info("metrics on port %d: /healthz, /metrics", port)
    return server
