"""Text normalisation, done once when a listing is parsed.

`clean_text` turns whatever a listing carries (raw TeX, escaped HTML, hard-wrapped lines) into one
readable Unicode line; `fold_key` turns text into the comparison key used for identity.
"""

from __future__ import annotations

import html
import re
import unicodedata
from functools import lru_cache
from typing import Any

from pylatexenc import latexwalker
from pylatexenc.latex2text import (
    LatexNodes2Text,
    MacroTextSpec,
    fmt_math_text_style,
    get_default_latex_context_db,
)
from pylatexenc.macrospec import LatexContextDb, MacroSpec

_TAG = re.compile(r"<[^<>]{0,2000}>")
# A comment's scan stops at the next '<!--', so a line of them is read once, not once per '<!--'.
_HTML_HINT = re.compile(
    r"<(?:/?[a-zA-Z][a-zA-Z0-9]*\b[^<>]*|!--(?:(?!<!--).)*?--)>"
    r"|&(?:#\d+|#x[0-9a-fA-F]+|[a-zA-Z]+);"
)
_BLOCK_TAG = re.compile(r"<(?:/p|br\s*/?|/div|/li|/h\d)\s*>", re.I)
_WHITESPACE = re.compile(r"\s+")
# The TeX that abstracts and titles carry, converted span by span (much faster than feeding the
# whole text to pylatexenc, and a bare % or & in plain prose cannot swallow the rest of the text).
# A group holds groups three deep: \underline{\textbf{M}}.
# Every scan that could run to the end of the line stops where the next span of its kind starts
# (math at the next \[ or \(, an optional argument at the next [): linear in the text's length.
_GROUP = r"\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}"
_TEX_SPAN = re.compile(
    rf"""
      \$\$[^$]+?\$\$ | \\\[(?:(?!\\\[).)+?\\\]             # display math
    | \$[^$\n]+?\$ | \\\((?:(?!\\\().)+?\\\)               # inline math
    | (?=\{{\\){_GROUP}                                   # {{\em text}}, {{\"o}}
    | \\verb\*?([^\sa-zA-Z*])[^\n]{{0,300}}?\1             # \verb+a_b+, kept as typed
    | \\[a-zA-Z]+\*?(?:\[[^\[\]{{}}]*\])?(?:{_GROUP})*    # \macro[opt]{{arg}}{{arg}}
    | \\[ ]                                               # a control space: i.i.d.\ data
    | \\[^a-zA-Z\s()\[\]](?:\{{\\?[a-zA-Z]\}}|[a-zA-Z])?  # accents \"o \"{{o}}, escapes \% \&
    | ``|(?<=\S)''|(?<![-!<])---?(?![->])                # TeX quotes and dashes
    | (?:(?<=[^\W\d_])|(?<=[.,;:)\]}}]))~(?=\S)           # a tie (vs.~SISO); (~10%) stays
    """,
    re.X,
)
_TEX_HINT = re.compile(r"[\\$`~]|--|''")
_MACRO_BEFORE_ARGUMENT = re.compile(r"\\([a-zA-Z]+)(?=\{[^}])")
_VERBATIM = re.compile(r"\\verb\*?([^\sa-zA-Z*])(.*)\1")
# A double quote opened or closed the TeX way, even when the other end is straight or curly
# (``x", "x'', ''x''), is one pair; two straight quotes ("x") stay as the author typed them.
_DOUBLE_QUOTED = re.compile(
    r"""(``|“|(?<![^\s(\[{])(?:''|"))(?=\S)((?:[^"“”`'$]|'(?!')){1,300}?)(?<=\S)(''|"|”)(?!\w)"""
)
_BARE_SPECIAL = re.compile(r"(?<!\\)([%&#])")
# Operator names pylatexenc would glue to their neighbours ($\kappa\log m$ -> "κlogm").
_OPERATOR = re.compile(r"\\(log|ln|exp|min|max|sup|inf|lim|sin|cos|tan|det|arg|Pr)(?![a-zA-Z])")
_SINGLE_QUOTED = re.compile(r"`([^`'\n]{1,80})'(?![\w'])")
_URL_ESCAPE = re.compile(r"\\([%#&_~$])")
_SUPERSCRIPT = str.maketrans("0123456789+-−", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻")
_SUBSCRIPT = str.maketrans("0123456789+-−", "₀₁₂₃₄₅₆₇₈₉₊₋₋")
_POWER = re.compile(r"\^([-+−]?\d+)")
# What makes a fraction's part or a script more than one term (brackets removed first).
_TERM_SEPARATOR = re.compile(r"[\s+\-−=<>≤≥≈∼≠/,·×±∓*∗:;|∈∝→]")
_SCRIPT_SEPARATOR = re.compile(r"[\s+\-−=<>≤≥≈∼≠/,·×±∓*∗:;|∈∝→_^]")
_BRACKETED = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")
# Macros with arguments that math in abstracts uses, as the parser must read them.
_FRACTIONS = ("frac", "dfrac", "tfrac", "cfrac", "nicefrac", "sfrac")
_DOUBLE_STRUCK = ("mathbb", "mathbbm", "mathds")
# Styles that only change a letter's look: \mathbf{x} and \boldsymbol\theta read x and θ
# (\mathbb, \mathcal, \mathscr and \mathfrak keep their letters: ℝ, 𝒪, ℒ, 𝔤 mean something else).
_PLAIN_STYLES = ("mathbf", "mathit", "mathsf", "mathtt", "mathnormal", "bm", "boldsymbol", "pmb")
_ONE_ARGUMENT = (
    *("texttt", "textsuperscript", "textsubscript", "unicode", "color", "url", "mathop"),
    *("norm", "abs", *_DOUBLE_STRUCK, *_PLAIN_STYLES),
)
_REPLACEMENTS = {"eg": "e.g.", "ie": "i.e.", "deg": "°", "S": "§", "Diamond": "◇", "Box": "□"}
_REPLACEMENTS |= {"checkmark": "✓", "cmark": "✓", "xmark": "✗"}
# Macros that only set a look or a size: their own text is nothing.
_SWITCHES = (
    *("tt", "em", "it", "bf", "sc", "sl", "rm", "large", "Large", "small", "color"),
    *("left", "right", "displaystyle", "textstyle", "scriptstyle", "limits", "nolimits"),
    *("big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr", "biggl", "biggr"),
)
# Macros whose argument is plain text: math holding only these ($\textit{...}$) is text.
_TEXT_MACROS = frozenset(
    [
        "text",
        "textit",
        "textbf",
        "textrm",
        "textsf",
        "texttt",
        "textsc",
        "emph",
        "underline",
        "href",
        "url",
        "hyperlink",
    ]
)


class _ReadableText(LatexNodes2Text):  # type: ignore[misc]  # pylatexenc ships no type hints
    """pylatexenc's converter, writing math the project's way: math with letters stays between
    dollars ($α>1$), math without letters is plain text (3×, 90%, R³), and a sub- or superscript
    keeps its grouping ($τ^(Δ,s)$)."""

    def math_node_to_text(self, node: Any) -> str:
        content = fold_whitespace(super().math_node_to_text(node))
        if _holds_only_text(node.nodelist) or not any(c.isalpha() for c in content):
            return _POWER.sub(lambda m: superscript(m.group(1)), content)
        return f"${content}$"

    def nodelist_to_text(self, nodelist: list[Any]) -> str:
        """pylatexenc's own loop (a bare macro keeps its space before letters: "log m"), with
        what follows a ^ or _ written as a script."""
        text = ""
        for previous, node in zip([None, *nodelist], nodelist, strict=False):
            if self._is_bare_macro_node(previous) and node.isNodeType(latexwalker.LatexCharsNode):
                text += previous.macro_post_space
            piece = self.node_to_text(node)
            if text.endswith(("^", "_")) and not node.isNodeType(latexwalker.LatexCharsNode):
                text, piece = _script(text, piece.strip())
            text += piece
        return text


def _script(base: str, script: str) -> tuple[str, str]:
    """A script after its caret: x^{2} -> x^2, τ^{Δ,s} -> τ^(Δ,s), 30^{\\circ} -> 30°."""
    if script == "∘" and base.endswith("^"):
        return base[:-1], "°"
    return base, f"({script})" if _is_compound(script, _SCRIPT_SEPARATOR) else script


def _is_compound(text: str, separator: re.Pattern[str]) -> bool:
    """More than one term: a+b, Δ,s, +(1-2), "response length"; not x, -1, σ_1(a+b) or |x|."""
    if len(text) < 2:
        return False
    unsigned = text[1:] if text[0] in "-+−" and text[1].isalnum() else text
    unbracketed = _BRACKETED.sub("", _BRACKETED.sub("", unsigned))
    return bool(separator.search(unbracketed))


def _fraction_to_text(node: Any, l2tobj: LatexNodes2Text) -> str:
    """\\frac{a+b}{2} -> (a+b)/2, \\frac\\gamma2 -> γ/2."""
    parts = [_argument_text(node, l2tobj, index) for index in (0, 1)]
    return "/".join(f"({p})" if _is_compound(p, _TERM_SEPARATOR) else p for p in parts)


def _holds_only_text(nodes: list[Any]) -> bool:
    """Math that only wraps text macros ($\\textit{perceptual updating}$, $\\href{...}{here}$)."""
    macros = [n for n in nodes if n.isNodeType(latexwalker.LatexMacroNode)]
    others = [n for n in nodes if n not in macros and n.latex_verbatim().strip()]
    return bool(macros) and not others and all(n.macroname in _TEXT_MACROS for n in macros)


def _argument(node: Any, index: int) -> Any:
    """A macro's argument node, or None when the source was cut before it (\\footnote{...)."""
    arguments = node.nodeargd.argnlist if node.nodeargd else []
    return arguments[index] if index < len(arguments) else None


def _argument_source(node: Any, index: int) -> str:
    """An argument as typed, for addresses: \\url{https://x.org/~me_2} keeps its ~ and _."""
    argument = _argument(node, index)
    return (
        "" if argument is None else _URL_ESCAPE.sub(r"\1", argument.latex_verbatim().strip("{} "))
    )


def _argument_text(node: Any, l2tobj: LatexNodes2Text, index: int) -> str:
    """An argument as text ("" when missing)."""
    argument = _argument(node, index)
    return "" if argument is None else str(l2tobj.nodelist_to_text([argument])).strip()


def _link_to_text(node: Any, l2tobj: LatexNodes2Text) -> str:
    """\\href{url}{text}: the text, then the address unless the text already is it."""
    address = _argument_source(node, 0)
    text = _argument_text(node, l2tobj, 1)
    if not text or text.rstrip("/").endswith(address.split("://")[-1].rstrip("/")):
        return address
    return f"{text} ({address})" if address else text


def _footnote_to_text(node: Any, l2tobj: LatexNodes2Text) -> str:
    text = _argument_text(node, l2tobj, 1)  # \\footnote[mark]{text}
    return f" ({text})" if text else " "


def _unicode_to_text(node: Any) -> str:
    """\\unicode{x2014} (MathJax) -> —."""
    try:
        return chr(int(_argument_source(node, 0).lstrip("xU+"), 16))
    except ValueError:
        return ""


def _walker_context() -> LatexContextDb:
    """What the parser must know to give these macros their arguments."""
    context = latexwalker.get_default_latex_context_db()
    two_arguments = ["href", "hyperlink", "binom", *_FRACTIONS]
    context.add_context_category(
        "paperbot",
        prepend=True,
        macros=[MacroSpec("operatorname", "*{")]
        + [MacroSpec(name, "{{") for name in two_arguments]
        + [MacroSpec(name, "{") for name in _ONE_ARGUMENT],
    )
    return context


def _text_context() -> LatexContextDb:
    """How these macros read; an unknown macro (an author's \\method) keeps its name."""
    context = get_default_latex_context_db()
    context.add_context_category(
        "paperbot",
        prepend=True,
        macros=[
            MacroTextSpec("href", simplify_repl=_link_to_text),
            MacroTextSpec("hyperlink", simplify_repl=_link_to_text),
            MacroTextSpec("url", simplify_repl=lambda n: _argument_source(n, 0)),
            MacroTextSpec("unicode", simplify_repl=_unicode_to_text),
            MacroTextSpec("footnote", simplify_repl=_footnote_to_text),
            *_math_macros(),
            *(MacroTextSpec(name, discard=False) for name in ("texttt", "mathop", *_PLAIN_STYLES)),
            *(MacroTextSpec(name, simplify_repl=text) for name, text in _REPLACEMENTS.items()),
            *(MacroTextSpec(name, discard=True) for name in _SWITCHES),
        ],
    )
    context.set_unknown_macro_spec(MacroTextSpec("", simplify_repl=_unknown_macro_to_text))
    return context


def _unknown_macro_to_text(node: Any) -> str:
    """An author's macro keeps its name (\\method -> method), but the common shorthand for a bold
    letter is the letter (\\bW -> W)."""
    name = str(node.macroname)
    letter = name[1:] if len(name) == 2 and name.startswith("b") else name
    return letter + str(node.macro_post_space)


def _math_macros() -> list[MacroTextSpec]:
    """Macros with arguments as plain text: \\frac{a+b}{2} -> (a+b)/2, \\operatorname{X} -> X."""
    return [
        MacroTextSpec("operatorname", simplify_repl=lambda n, l2tobj: _argument_text(n, l2tobj, 1)),
        MacroTextSpec("binom", "C(%s,%s)"),
        MacroTextSpec("norm", "‖%s‖"),
        MacroTextSpec("abs", "|%s|"),
        MacroTextSpec(
            "textsuperscript",
            simplify_repl=lambda n, l2tobj: superscript(_argument_text(n, l2tobj, 0)),
        ),
        MacroTextSpec(
            "textsubscript",
            simplify_repl=lambda n, l2tobj: subscript(_argument_text(n, l2tobj, 0)),
        ),
        *(MacroTextSpec(name, simplify_repl=_fraction_to_text) for name in _FRACTIONS),
        *(MacroTextSpec(name, simplify_repl=_double_struck) for name in _DOUBLE_STRUCK),
    ]


def _double_struck(node: Any, l2tobj: LatexNodes2Text) -> str:
    """\\mathbb{R} -> ℝ, and the indicator \\mathbbm{1} -> 𝟙."""
    text = _argument_text(node, l2tobj, 0)
    return "𝟙" if text == "1" else str(fmt_math_text_style(text, "doublestruck"))


@lru_cache(maxsize=1)
def _converter() -> tuple[_ReadableText, LatexContextDb]:
    converter = _ReadableText(
        latex_context=_text_context(), math_mode="text", strict_latex_spaces=False
    )
    return converter, _walker_context()


def superscript(text: str) -> str:
    """2 -> ², -1 -> ⁻¹; anything else keeps its caret (^st)."""
    raised = text.translate(_SUPERSCRIPT)
    return raised if raised != text and all(c in "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻" for c in raised) else f"^{text}"


def subscript(text: str) -> str:
    """2 -> ₂ (CO₂); anything else keeps its underscore."""
    lowered = text.translate(_SUBSCRIPT)
    return lowered if lowered != text and all(c in "₀₁₂₃₄₅₆₇₈₉₊₋" for c in lowered) else f"_{text}"


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


# pylatexenc's time grows faster than a span's length: a longer span (the longest in a year of
# real abstracts is about 500 characters) is kept as written, so a file's cost stays linear.
TEX_SPAN_MAX = 1000


@lru_cache(maxsize=65536)
def _tex_span_to_text(span: str) -> str:
    if len(span) > TEX_SPAN_MAX:
        return span
    if verbatim := _VERBATIM.fullmatch(span):
        return verbatim.group(2)
    converter, parser_context = _converter()
    try:
        source = _OPERATOR.sub(r" \1 ", _BARE_SPECIAL.sub(r"\\\1", span))
        if "{" in source:
            source = _unwrap_unknown_macros(source, converter.latex_context)
        converted = converter.latex_to_text(source, latex_context=parser_context)
    except Exception:  # pylatexenc raises assorted errors on odd input; keep the source then
        return span
    if "%s" in converted and "%s" not in span:  # a macro cut off before its arguments (\frac)
        converted = converted.replace("%s", "")
    return _WHITESPACE.sub(" ", converted.replace("\xa0", " "))  # clean_text trims the line


def _unwrap_unknown_macros(source: str, context: LatexContextDb) -> str:
    """An unknown macro before an argument is an author's markup (\\change{the food} -> the
    food); without one it is a name (\\method) and stays."""

    def unwrap(macro: re.Match[str]) -> str:
        return "" if context.get_macro_spec(macro.group(1)).macroname == "" else macro.group(0)

    return _MACRO_BEFORE_ARGUMENT.sub(unwrap, source)


def tex_to_unicode(text: str) -> str:
    """Accents and common macros to Unicode (`Sch\\"on` -> Schön, `\\emph{x}` -> x), TeX quotes
    and dashes to typography; math with letters kept readable between its dollars ($α>1$)."""
    if not _TEX_HINT.search(text):
        return text
    if "\n" in text:  # math wrapped over two lines is one span
        text = fold_whitespace(text)
    if "''" in text or "``" in text:
        text = _DOUBLE_QUOTED.sub(_pair_quotes, text)
    text = _TEX_SPAN.sub(lambda m: _tex_span_to_text(m.group(0)), text)
    if "{" in text or "}" in text:
        text = _strip_grouping_braces(text)
    return _SINGLE_QUOTED.sub("‘\\1’", text)


def _pair_quotes(quoted: re.Match[str]) -> str:
    opening, body, closing = quoted.groups()
    return quoted.group(0) if opening == closing == '"' else f"“{body}”"


def _strip_grouping_braces(text: str) -> str:
    """Braces left over from TeX grouping ({GPT}) go; braces inside $math$ stay."""
    parts = re.split(r"(\$[^$]*\$)", text)
    return "".join(p if p.startswith("$") else p.replace("{", "").replace("}", "") for p in parts)


def fold_whitespace(text: str) -> str:
    return _WHITESPACE.sub(" ", text).strip()


# Control characters (a NUL after the first 8 KB of a file, &#1; in a feed) and lone surrogates
# (&#xD800;) are no text: PostgreSQL refuses NUL, UTF-8 refuses surrogates.
_UNPRINTABLE = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


def printable(text: str) -> str:
    """The text without control characters and lone surrogates (for addresses and DOIs, which
    are not otherwise normalised)."""
    return _UNPRINTABLE.sub("", text)


def first_line(error: BaseException) -> str:
    """An error's message in one line (SQLAlchemy's and psycopg's go on with the statement and
    its values), or its type when it has none."""
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__


def clean_text(text: str | None, *, html_input: bool = False, tex: bool = True) -> str:
    """The one normalisation every parser applies to every text field."""
    if not text:
        return ""
    text = unicodedata.normalize("NFC", printable(text))
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
