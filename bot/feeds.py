"""Polling RSS/Atom feeds: the network edge. What a feed brings is ingested like a listing file
(once per content, papers de-duplicated against everything stored)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import httpx

from bot import __version__
from bot.service.ingest import FeedError

log = logging.getLogger(__name__)

TIMEOUT_SECONDS = 30
MAX_BYTES = 50_000_000


@dataclass
class FeedFetcher:
    """Fetches feeds with conditional requests (ETag, Last-Modified): an unchanged feed costs
    a 304 and nothing else."""

    timeout: float = TIMEOUT_SECONDS
    validators: dict[str, dict[str, str]] = field(default_factory=dict)

    def fetch(self, url: str) -> bytes | None:
        """The feed's content, or None when it has not changed since the last fetch."""
        headers = {"User-Agent": f"paperbot/{__version__}", **self.validators.get(url, {})}
        try:
            response = httpx.get(url, headers=headers, timeout=self.timeout, follow_redirects=True)
        except httpx.HTTPError as error:
            raise FeedError(f"cannot fetch {url}: {error}") from None
        if response.status_code == 304:
            return None
        if response.status_code != 200:
            raise FeedError(f"cannot fetch {url}: HTTP {response.status_code}")
        if len(response.content) > MAX_BYTES:
            raise FeedError(f"{url} sent more than {MAX_BYTES // 1_000_000} MB; not read")
        kept = {"ETag": "If-None-Match", "Last-Modified": "If-Modified-Since"}
        self.validators[url] = {
            ask: response.headers[got] for got, ask in kept.items() if got in response.headers
        }
        return response.content
