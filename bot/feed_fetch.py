"""Fetching RSS/Atom feeds over HTTP: the network edge of the feeds job (bot/service/feed_polling.py
decides when each feed is polled; what it brings is ingested like a listing file)."""

from __future__ import annotations

import logging
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import httpx

from bot import __version__
from bot.core.listings.biorxiv import is_paged_address, next_page
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

    def fetch(self, url: str) -> bytes | None:
        """The feed's content, or None when it has not changed since the last fetch."""
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
            if got in response.headers and not _paged(url, content)
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


def _paged(url: str, content: bytes) -> bool:
    """Whether a page of a paged API answer has pages after it: such a page is fetched whole
    at every poll, so that a poll that failed at a later page reads every page again from the
    first (those read before are known by their content and skipped) rather than stopping at
    a first page not modified."""
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
