"""`/healthz` and `/metrics` (Prometheus text format) on `metrics.port`, for the operator."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping

from sqlalchemy.exc import SQLAlchemyError

from bot.service.status import StoreStatus

log = logging.getLogger(__name__)


def _gauge(name: str, about: str, values: int | Mapping[str, int], label: str = "") -> list[str]:
    """One gauge in Prometheus text format: a value, or one value per label."""
    lines = [f"# HELP paperbot_{name} {about}", f"# TYPE paperbot_{name} gauge"]
    if isinstance(values, int):
        return [*lines, f"paperbot_{name} {values}"]
    return lines + [f'paperbot_{name}{{{label}="{k}"}} {n}' for k, n in sorted(values.items())]


def render_metrics(status: StoreStatus) -> str:
    lines = [
        *_gauge("papers", "Papers stored.", status.papers),
        *_gauge("filters", "Filters kept by all chats.", status.filters),
        *_gauge("chats", "Chats by state.", status.chats, "state"),
        *_gauge("deliveries", "Delivery ledger rows by status.", status.deliveries, "status"),
        *_gauge(
            "listing_files", "Listing files and feed contents by outcome.", status.files, "status"
        ),
    ]
    return "\n".join(lines) + "\n"


async def _answer(read_status: Callable[[], StoreStatus], path: str) -> tuple[str, str]:
    if path not in ("/healthz", "/metrics"):
        return "404 Not Found", "not found: try /healthz or /metrics\n"
    try:
        status = await asyncio.to_thread(read_status)
    except (SQLAlchemyError, OSError) as error:  # the database is down: what /healthz is for
        log.warning("health check: %s", error)
        return "503 Service Unavailable", f"database unavailable: {type(error).__name__}\n"
    return "200 OK", "ok\n" if path == "/healthz" else render_metrics(status)


async def serve_metrics(
    read_status: Callable[[], StoreStatus], port: int, host: str = "0.0.0.0"
) -> asyncio.Server:
    """`read_status` reads the counts (in a thread: it queries the database); a failure to
    read them is what /healthz reports."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = (await reader.readline()).decode("latin-1").split()
            while (await reader.readline()).strip():
                pass  # the headers: nothing in them matters here
            path = request[1].split("?", 1)[0] if len(request) > 1 else "/"
            status, body = await _answer(read_status, path)
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
