"""Telegram's HTML as messages: a long reply split within Telegram's limit without breaking a
tag, and a message turned to plain text (the terminal's rendering, and what is sent when
Telegram refuses a message's HTML)."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

from bot.core.render import MESSAGE_LIMIT, fit, pack, size

_TAG = re.compile(r"<(/?)([a-z-]+)[^>]*>")


def _depth_change(line: str) -> int:
    return sum(-1 if closing else 1 for closing, _ in _TAG.findall(line))


def split_message(text: str, limit: int = MESSAGE_LIMIT) -> list[str]:
    """A reply cut into messages of at most `limit`, between lines and never inside a tag (a
    tagged run of lines too long on its own is sent shortened, as plain text)."""
    if size(text) <= limit:
        return [text]
    units: list[str] = []  # runs of lines that open and close their tags
    lines: list[str] = []
    depth = 0
    for line in text.split("\n"):
        lines.append(line)
        depth += _depth_change(line)
        if depth == 0:
            units.append("\n".join(lines))
            lines = []
    if lines:
        units.append("\n".join(lines))
    fitting = [
        unit if size(unit) <= limit else fit(html.unescape(_TAG.sub("", unit)), limit // 2)
        for unit in units
    ]
    return [message.text for message in pack(fitting, limit=limit, separator="\n")]


class _PlainText(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.href: str | None = None
        self.quote = False

    def _marks(self, tag: str) -> bool:
        """Matched words are **marked**; other bold and underline is dropped."""
        return tag == "u" or (tag == "b" and self.quote)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._marks(tag):
            self.out.append("**")
        elif tag == "a":
            self.href = dict(attrs).get("href")
            self.out.append("")
        elif tag == "blockquote":
            self.quote = True
            self.out.append("  > ")

    def handle_endtag(self, tag: str) -> None:
        if self._marks(tag):
            self.out.append("**")
        elif tag == "a":
            shown = self.out[-1] if self.out else ""
            if self.href and self.href.removeprefix("https://") not in shown:
                self.out.append(f" ({self.href})")
            self.href = None
        elif tag == "blockquote":
            self.quote = False

    def handle_data(self, data: str) -> None:
        self.out.append(data.replace("\n", "\n  > ") if self.quote else data)


def to_plain(text: str) -> str:
    """The terminal's rendering of a message: tags dropped, bold as **...**, links spelled out."""
    parser = _PlainText()
    parser.feed(text)
    parser.close()
    return re.sub(r"\*\*\*\*", "", "".join(parser.out))
