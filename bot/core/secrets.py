"""Secrets kept out of what is shown: a URL's password (a feed's, a database's) as `***`."""

from __future__ import annotations

import re

# scheme://user:password@ — a password cannot hold `@`, `/` or a space unescaped (RFC 3986)
_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<user>[^:/@\s]*):[^@/\s]*@")


def masked_urls(text: str) -> str:
    """The text (a URL, or a message naming URLs) with each URL's password as `***`:
    `https://ada:s3cret@feeds.example/rss` becomes `https://ada:***@feeds.example/rss`."""
    return _USERINFO.sub(r"\g<scheme>\g<user>:***@", text)
