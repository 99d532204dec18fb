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
    """Fetches feeds with conditional requests (ETag, Last-Modified): an unchanged feed, or an
    unchanged page of a paged API answer, costs a 304 and nothing else."""

    timeout: float = TIMEOUT_SECONDS
    validators: dict[str, dict[str, str]] = field(default_factory=dict)
    following: dict[str, str] = field(default_factory=dict)  # a page's next, by its address
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
        self._remember(url, response.headers, content)
        return content

    def page_after(self, url: str) -> str | None:
        """The page that followed this page of a paged API answer when it was last read whole:
        where a poll goes on when this one answers 304."""
        return self.following.get(url)

    def forget(self, url: str) -> None:
        """Ask for `url` unconditionally next time (what it answered was not stored)."""
        self.validators.pop(url, None)
        self.following.pop(url, None)

    def _remember(self, url: str, headers: httpx.Headers, content: bytes) -> None:
        """Keep what the answer's validators need to ask for it conditionally next time, and for
        a page of a paged answer, the page that follows it (a 304 has no content to find it in);
        an answer without validators, or one never asked conditionally, leaves nothing behind."""
        self.forget(url)
        kept = {ask: headers[got] for got, ask in VALIDATORS.items() if got in headers}
        if not kept or not _asked_conditionally(url):
            return
        self.validators[url] = kept
        if is_paged_address(url):
            after = next_page(url, content.decode("utf-8", "replace"))
            if after:
                self.following[url] = after

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


# What an answer's validators are sent back as, when it is asked for again.
VALIDATORS = {"ETag": "If-None-Match", "Last-Modified": "If-Modified-Since"}


def _asked_conditionally(url: str) -> bool:
    """Whether an address is asked for with the validators of its last answer. A feed is, and
    so is each page of a bioRxiv/medRxiv API answer, with its own validators, when
    api.biorxiv.org sends any (its help page, details/<server>/help, names none; without them
    each page is read whole, and its content hash tells what was read before). NCBI's
    E-utilities are not: their documentation (Entrez Programming Utilities Help, NBK25497 and
    NBK25499) names no ETag, Last-Modified or conditional request. An esearch answer would
    be asked whole in any case: the records of its ids that no stored paper has are fetched
    after it, so a search whose efetch failed is read again even when unchanged. An efetch
    address names the ids it asks for, each asked once: keeping its validators would only
    grow the memory."""
    return "/entrez/eutils/" not in url and not is_esearch_address(url)


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
