"""Fetching RSS/Atom feeds over HTTP: the network edge of the feeds job (bot/service/feed_polling.py
decides when each feed is polled; what it brings is ingested like a listing file)."""

from __future__ import annotations

import logging
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

import httpx

from bot import __version__
from bot.core.listings.biorxiv import is_paged_address, next_page
from bot.core.listings.pubmed import is_esearch_address
from bot.service.feed_polling import FeedError
from bot.service.ingest import MAX_BYTES, too_large

log = logging.getLogger(__name__)

TIMEOUT_SECONDS = 30


@dataclass
class FeedFetcher:
    """Fetches feeds with conditional requests (ETag, Last-Modified): an unchanged feed costs
    a 304 and nothing else."""

    timeout: float = TIMEOUT_SECONDS
    validators: dict[str, dict[str, str]] = field(default_factory=dict)
    max_bytes: int = MAX_BYTES  # a bigger feed is refused, read no further than the limit
    sleep: Callable[[float], None] = time.sleep
    monotonic: Callable[[], float] = time.monotonic
    _last_eutils: float | None = None  # when the last E-utilities request went

    def _keep_rate(self, url: str) -> None:
        """NCBI's E-utilities take 3 requests a second from a client, 10 with an API key:
        a request to them waits until its turn."""
        if "/entrez/eutils/" not in url:
            return
        interval = 1 / (10 if "api_key=" in url else 3)
        if self._last_eutils is not None:
            wait = self._last_eutils + interval - self.monotonic()
            if wait > 0:
                self.sleep(wait)
        self._last_eutils = self.monotonic()

    def fetch(self, url: str) -> bytes | None:
        """The feed's content, or None when it has not changed since the last fetch."""
        self._keep_rate(url)
        headers = {
            "User-Agent": f"paperbot/{__version__}",
            "Accept-Encoding": ", ".join(UNPACKED),  # what _read_within_limit unpacks itself
            **self.validators.get(url, {}),
        }
        try:
            with httpx.stream(
                "GET", url, headers=headers, timeout=self.timeout, follow_redirects=True
            ) as response:
                if response.status_code == 304:
                    return None
                if response.status_code != 200:
                    raise FeedError(f"cannot fetch {url}: HTTP {response.status_code}")
                content = self._read_within_limit(url, response)
        except httpx.HTTPError as error:
            raise FeedError(f"cannot fetch {url}: {error}") from None
        kept = {"ETag": "If-None-Match", "Last-Modified": "If-Modified-Since"}
        self.validators[url] = {
            ask: response.headers[got]
            for got, ask in kept.items()
            if got in response.headers and not _fetched_whole(url, content)
        }
        return content

    def _read_within_limit(self, url: str, response: httpx.Response) -> bytes:
        """The body, refused as soon as it is known to pass `max_bytes` (by its declared length,
        or while it comes and is unpacked), never held whole in memory. Unpacked here, a slice
        at a time, rather than by httpx, which unpacks each piece that arrives whole: 50 KB of
        gzip is 50 MB in one piece."""
        declared = response.headers.get("Content-Length", "")
        if declared.isdigit() and int(declared) > self.max_bytes:
            raise FeedError(f"{url}: {too_large(int(declared), self.max_bytes)}")
        unpacker = Unpacker(url, response.headers.get("Content-Encoding", ""))
        chunks, size = [], 0
        for chunk in unpacker.unpack(response.iter_raw()):
            size += len(chunk)
            if size > self.max_bytes:
                raise FeedError(f"{url}: {too_large(size, self.max_bytes, at_least=True)}")
            chunks.append(chunk)
        return b"".join(chunks)


def _fetched_whole(url: str, content: bytes) -> bool:
    """Whether an answer is fetched whole at every poll, never asked conditionally: a page of
    a paged API answer with pages after it, and a PubMed search, so that a poll that failed
    at a later page or record request reads them all again (what was read before is known by
    its content, or its ids, and skipped) rather than stopping at a first answer not
    modified."""
    if is_esearch_address(url):
        return True
    return is_paged_address(url) and next_page(url, content.decode("utf-8", "replace")) is not None


UNPACKED = ("gzip", "deflate")  # the content codings a feed may come in
SLICE = 1 << 20  # the most bytes one step of unpacking makes


class Unpacker:
    """A body's pieces unpacked as they come (gzip or deflate), a slice of at most SLICE bytes
    at a time, whatever a piece unpacks to."""

    def __init__(self, url: str, coding: str) -> None:
        self.url, self.coding = url, coding.strip().lower()
        if self.coding not in ("", "identity", *UNPACKED):
            raise FeedError(
                f"{url}: sent in the content coding {self.coding[:40]!r}, not asked for"
            )
        # gzip's header or zlib's (deflate, as the standard has it) told apart by zlib itself
        self._zlib = zlib.decompressobj(wbits=32 + zlib.MAX_WBITS)

    def unpack(self, pieces: Iterable[bytes]) -> Iterator[bytes]:
        if self.coding in ("", "identity"):
            yield from pieces
            return
        try:
            for piece in pieces:
                while piece:
                    yield self._zlib.decompress(piece, SLICE)
                    piece = self._zlib.unconsumed_tail
            yield self._zlib.flush()
        except zlib.error as error:
            raise FeedError(f"{self.url}: its {self.coding} content is damaged ({error})") from None
