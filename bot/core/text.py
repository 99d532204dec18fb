"""Text normalisation, done once when a listing is parsed.

`clean_text` turns whatever a listing carries (raw TeX, escaped HTML, hard-wrapped lines) into one
readable Unicode line; `fold_key` turns text into the comparison key used for identity.
"""

from __future__ import annotations

import html
import re
import unicodedata
from functools import lru_cache

from pylatexenc.latex2text import LatexNodes2Text

_TAG = re.compile(r"<[^<>]{0,2000}>")
_HTML_HINT = re.compile(
    r"<(?:/?[a-zA-Z][a-zA-Z0-9]*\b[^<>]*|!--.*?--)>|&(?:#\d+|#x[0-9a-fA-F]+|[a-zA-Z]+);"
)
_BLOCK_TAG = re.compile(r"<(?:/p|br\s*/?|/div|/li|/h\d)\s*>", re.I)
_WHITESPACE = re.compile(r"\s+")
# The TeX that abstracts and titles carry, converted span by span (much faster than feeding the
# whole text to pylatexenc, and a bare % or & in plain prose cannot swallow the rest of the text).
_TEX_SPAN = re.compile(
    r"""
      \$\$[^$]+?\$\$                                  # display math
    | \$[^$\n]+?\$                                   # inline math
    | \{\\(?:em|it|bf|sl|sc|tt|rm)\s[^{}]*\}          # {\em text}
    | \{?\\[a-zA-Z]+\*?(?:\[[^\]{}]*\])?(?:\{[^{}]*\})*\}?   # \macro[opt]{arg}{arg}
    | \{?\\[^a-zA-Z\s](?:\{\\?[a-zA-Z]\}|[a-zA-Z])?\}?  # accents \"o \"{o} {\"o}, escapes \% \&
    """,
    re.X,
)
_TEX_HINT = re.compile(r"[\\$]")
_BARE_SPECIAL = re.compile(r"(?<!\\)([%&#])")
_LATEX = LatexNodes2Text(math_mode="with-delimiters", strict_latex_spaces=False)
# Operator names pylatexenc would glue to their neighbours ($\kappa\log m$ -> "κlogm").
_OPERATOR = re.compile(r"\\(log|ln|exp|min|max|sup|inf|lim|sin|cos|tan|det|arg|Pr)(?![a-zA-Z])")
_MATH_PADDING = re.compile(r"^(\$+)\s*(.*?)\s*(\$+)$", re.S)


def strip_html(text: str) -> str:
    """HTML to text: block ends become spaces, tags go, entities (even double-escaped) resolve."""
    if not _HTML_HINT.search(text):
        return text
    text = _BLOCK_TAG.sub(" ", text)
    text = _TAG.sub("", text)
    for _ in range(2):  # legacy arXiv feeds sometimes escape entities twice
        unescaped = html.unescape(text)
        if unescaped == text:
            break
        text = unescaped
    return _TAG.sub("", text) if "<" in text and _HTML_HINT.search(text) else text


@lru_cache(maxsize=65536)
def _tex_span_to_text(span: str) -> str:
    try:
        source = _OPERATOR.sub(r" \1 ", _BARE_SPECIAL.sub(r"\\\1", span))
        converted = _LATEX.latex_to_text(source)
    except Exception:  # pylatexenc raises assorted errors on odd input; keep the source then
        return span
    converted = fold_whitespace(converted.replace("\xa0", " "))
    return _MATH_PADDING.sub(r"\1\2\3", converted)


def tex_to_unicode(text: str) -> str:
    """Accents and common macros to Unicode (`Sch\\"on` -> Schön, `\\emph{x}` -> x); math kept
    readable between its dollars ($α>1$)."""
    if not _TEX_HINT.search(text):
        return text
    text = _TEX_SPAN.sub(lambda m: _tex_span_to_text(m.group(0)), text)
    if "{" in text or "}" in text:
        text = _strip_grouping_braces(text)
    return text.replace("~", " ")


def _strip_grouping_braces(text: str) -> str:
    """Braces left over from TeX grouping ({GPT}) go; braces inside $math$ stay."""
    parts = re.split(r"(\$[^$]*\$)", text)
    return "".join(p if p.startswith("$") else p.replace("{", "").replace("}", "") for p in parts)


def fold_whitespace(text: str) -> str:
    return _WHITESPACE.sub(" ", text).strip()


def clean_text(text: str | None, *, html_input: bool = False, tex: bool = True) -> str:
    """The one normalisation every parser applies to every text field."""
    if not text:
        return ""
    text = unicodedata.normalize("NFC", text)
    if html_input or "<" in text or "&" in text:
        text = strip_html(text)
    if tex:
        text = tex_to_unicode(text)
    return unicodedata.normalize("NFC", fold_whitespace(text))


_COMBINING = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")


def strip_accents(text: str) -> str:
    if text.isascii():
        return text
    return _COMBINING.sub("", unicodedata.normalize("NFKD", text))


_NOT_WORD = re.compile(r"[^\w]+|_")


def fold_key(text: str) -> str:
    """Case, accents, punctuation and spacing folded: 'Schön: KV-cache!' -> 'schon kv cache'."""
    if not text:
        return ""
    return _NOT_WORD.sub(" ", strip_accents(text).casefold()).strip()
