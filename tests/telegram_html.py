"""Telegram's HTML parse mode, as strictly as Telegram applies it: the fake Bot API server refuses
what Telegram refuses, and the renderer's property tests use the same check."""

from __future__ import annotations

import re

TAGS = {
    "b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "a", "code", "pre",
    "blockquote", "tg-spoiler", "span", "tg-emoji",
}  # fmt: skip
ATTRIBUTE = r"""\s+[a-zA-Z-]+(?:="[^"<>]*"|='[^'<>]*')?"""
TAG = re.compile(rf"<(/?)([a-zA-Z][a-zA-Z0-9-]*)((?:{ATTRIBUTE})*)\s*>")
ENTITY = re.compile(r"&(?:lt|gt|amp|quot|#\d{1,7}|#x[0-9a-fA-F]{1,6});")
NAMED = {"&lt;": "<", "&gt;": ">", "&amp;": "&", "&quot;": '"'}
SPECIAL = re.compile(r"[<>&]")
MESSAGE_LIMIT = 4096


class EntityError(ValueError):
    pass


def parse_html(text: str) -> str:
    """The message's visible text; raises EntityError with Telegram's description."""
    out: list[str] = []
    stack: list[str] = []
    i = 0
    for special in SPECIAL.finditer(text):
        if special.start() < i:
            continue  # inside a tag or entity already read
        out.append(text[i : special.start()])
        i = special.start()
        char = text[i]
        if char == "<":
            match = TAG.match(text, i)
            if not match:
                raise EntityError(f"Can't parse entities: unexpected < at byte offset {i}")
            closing, name = match.group(1) == "/", match.group(2).lower()
            if name not in TAGS:
                raise EntityError(f'Can\'t parse entities: unsupported start tag "{name}"')
            if closing:
                if not stack or stack[-1] != name:
                    raise EntityError(f'Can\'t parse entities: unmatched end tag "{name}"')
                stack.pop()
            else:
                if name == "a" and "href=" not in match.group(3):
                    raise EntityError("Can't parse entities: a tag without href")
                stack.append(name)
            i = match.end()
        elif char == "&":
            match = ENTITY.match(text, i)
            if not match:
                raise EntityError(f"Can't parse entities: can't find end of the entity at {i}")
            entity = match.group(0)
            if entity in NAMED:
                out.append(NAMED[entity])
            else:
                number = entity[2:-1]
                out.append(chr(int(number[1:], 16) if number.startswith("x") else int(number)))
            i = match.end()
        else:
            raise EntityError(f"Can't parse entities: unexpected > at byte offset {i}")
    out.append(text[i:])
    if stack:
        raise EntityError(f"Can't parse entities: can't find end tag corresponding to {stack[-1]}")
    return "".join(out)


def check_message(text: str, parse_mode: str | None) -> str | None:
    """Telegram's answer to a message text: None when it is accepted, else the description."""
    try:
        visible = parse_html(text) if parse_mode == "HTML" else text
    except EntityError as error:
        return f"Bad Request: {error}"
    if not visible.strip():
        return "Bad Request: message text is empty"
    if len(visible.encode("utf-16-le")) // 2 > MESSAGE_LIMIT:
        return "Bad Request: message is too long"
    return None
