"""The filter language: close to arXiv's search syntax.

    diffusion models        both words, in title or abstract (AND is implicit)
    "language model"        the phrase (hyphens and spaces alike)
    distill*                any word starting with distill
    fine-tun*               a phrase whose last word starts with tun ("fine tun*" alike)
    a OR b, a | b           either
    -term, NOT term         without it
    ( ... )                 grouping
    ti: abs: au: cat:       title, abstract, author, category (cat:cs.LG, cat:cs.*,
                            cat:biorxiv.neuroscience)
    mesh: jr: src:          a MeSH term, a journal (name or abbreviation), a source
                            (mesh:"CRISPR-Cas Systems", jr:"Nature Neuroscience",
                            jr:"nat neurosci", src:pubmed)

`parse_query` gives a tree whose nodes keep their position in the source; `canonical` shows a
person how the filter was understood. User text is never compiled into a regular expression.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from bot.core.analysis import (
    fold_category,
    fold_journal,
    fold_name,
    fold_word,
    singular,
    surname_first,
)
from bot.core.analysis import words as analysis_words
from bot.core.i18n import N_
from bot.core.paper import SOURCES, read_arxiv_id
from bot.core.problems import Position, Problem

FIELDS = {
    "ti": "title",
    "abs": "abstract",
    "au": "author",
    "cat": "category",
    "mesh": "mesh",
    "jr": "journal",
    "src": "source",
}
# Fields matched like a category, as keys of their own kind ("mesh:grid cell"): a name whole,
# never a word of it, so jr:nature is Nature and not Nature Neuroscience.
NAMED_FIELDS = {"mesh": "mesh", "journal": "jr", "source": "src"}
TEXT_FIELDS = ("title", "abstract")


class InvalidQuery(ValueError):
    """A filter that cannot be used; the problem points at what is wrong, for a person (in
    their language: `error.problem.text(t)`; str(error) is the English)."""

    def __init__(self, problem: Problem, position: int | None = None) -> None:
        if position is not None:
            # people count characters from 1: "at 1" is the first (`position` stays an index)
            problem = Problem.of(
                N_("{problem} at {position}"), problem=problem, position=Position(position + 1)
            )
        super().__init__(problem.message)
        self.problem = problem
        self.position = position


@dataclass(frozen=True)
class QueryLimits:
    max_length: int = 300
    max_terms: int = 20
    max_depth: int = 6


# Whatever the settings say: the parser and every walk of the tree recurse once a level, and
# Python's stack holds about a thousand calls.
DEPTH_CEILING = 100
# Control characters (NUL, escapes) and lone surrogates are no part of any word: refused, never
# stored (PostgreSQL refuses NUL in text).
_CONTROL = re.compile("[\x00-\x08\x0e-\x1f\x7f\ud800-\udfff]")


# -- the tree ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Word:
    """One word (folded, singular) in the given fields."""

    term: str
    fields: tuple[str, ...]
    position: int
    shown: str  # as the user wrote it, folded: what the canonical form shows


@dataclass(frozen=True)
class Phrase:
    terms: tuple[str, ...]
    fields: tuple[str, ...]
    position: int
    shown: str


@dataclass(frozen=True)
class Prefix:
    prefix: str  # folded, not singular
    fields: tuple[str, ...]
    position: int


@dataclass(frozen=True)
class PhrasePrefix:
    """Words in order whose last only starts with `prefix`: fine-tun*, "large language mod*"."""

    terms: tuple[str, ...]  # the full words (folded, singular), one or more
    prefix: str  # the last word's start (folded, not singular)
    fields: tuple[str, ...]
    position: int
    shown: str  # every word as the user wrote it, folded: "fine tun"


@dataclass(frozen=True)
class Category:
    """A category (cs.lg, or cs. for cat:cs.* / cat:cs), or a name of a kind of its own, its
    key written kind:name (mesh:crispr cas systems, jr:nature, src:pubmed)."""

    value: str  # folded
    is_prefix: bool
    position: int

    @property
    def is_named(self) -> bool:
        """A MeSH term, journal or source rather than a category."""
        return ":" in self.value


@dataclass(frozen=True)
class And:
    parts: tuple[Node, ...]
    position: int


@dataclass(frozen=True)
class Or:
    parts: tuple[Node, ...]
    position: int


@dataclass(frozen=True)
class Not:
    part: Node
    position: int


Leaf = Word | Phrase | Prefix | PhrasePrefix | Category
Node = Leaf | And | Or | Not


# -- the tokenizer ----------------------------------------------------------------------------

_FIELD = re.compile(r"([A-Za-z]+):")
_BARE = re.compile(r'[^\s()"|]+')


@dataclass(frozen=True)
class _Lexeme:
    kind: str  # ( ) OR AND NOT - TERM PHRASE
    text: str
    position: int
    field: str | None = None


def _lex(source: str) -> list[_Lexeme]:
    lexemes: list[_Lexeme] = []
    i = 0
    while i < len(source):
        char = source[i]
        if char.isspace():
            i += 1
        elif char in "()":
            lexemes.append(_Lexeme(char, char, i))
            i += 1
        elif char == "|":
            lexemes.append(_Lexeme("OR", "|", i))
            i += 1
        elif char == "-" and i + 1 < len(source) and not source[i + 1].isspace():
            lexemes.append(_Lexeme("-", "-", i))
            i += 1
        elif char == '"':
            i = _lex_phrase(source, i, None, lexemes)
        else:
            i = _lex_word(source, i, lexemes)
    return lexemes


def _lex_phrase(source: str, start: int, field: str | None, lexemes: list[_Lexeme]) -> int:
    quote = source.index('"', start)
    end = source.find('"', quote + 1)
    if end < 0:
        raise InvalidQuery(Problem.of(N_("unbalanced quote")), quote)
    lexemes.append(_Lexeme("PHRASE", source[quote + 1 : end], start, field))
    return end + 1


def _lex_word(source: str, start: int, lexemes: list[_Lexeme]) -> int:
    field = None
    field_match = _FIELD.match(source, start)
    if field_match:
        name = field_match.group(1).lower()
        if name not in FIELDS:
            raise InvalidQuery(
                Problem.of(
                    N_("unknown field '{field}:'; use ti:, abs:, au:, cat:, mesh:, jr: or src:"),
                    field=field_match.group(1),
                ),
                start,
            )
        field = FIELDS[name]
        after = field_match.end()
        if after < len(source) and source[after] == '"':
            return _lex_phrase(source, after, field, lexemes)
        if after >= len(source) or source[after].isspace() or source[after] in "()|":
            raise InvalidQuery(
                Problem.of(
                    N_("'{field}' needs a word or a quoted phrase"), field=field_match.group(0)
                ),
                start,
            )
        start_of_value = after
    else:
        start_of_value = start
    match = _BARE.match(source, start_of_value)
    assert match is not None
    text = match.group()
    if field is None and text in ("OR", "AND", "NOT"):
        lexemes.append(_Lexeme(text, text, start))
    else:
        lexemes.append(_Lexeme("TERM", text, start, field))
    return match.end()


# -- the parser -------------------------------------------------------------------------------


class _Parser:
    def __init__(self, lexemes: list[_Lexeme], limits: QueryLimits) -> None:
        self.lexemes = lexemes
        self.index = 0
        self.limits = limits
        self.leaves = 0

    def peek(self) -> _Lexeme | None:
        return self.lexemes[self.index] if self.index < len(self.lexemes) else None

    def take(self) -> _Lexeme:
        lexeme = self.lexemes[self.index]
        self.index += 1
        return lexeme

    # OR binds tighter than the implicit AND, as in web search: `diffusion OR flow models` is
    # `(diffusion OR flow) AND models`.
    def parse_and(self, depth: int) -> Node:
        parts = [self.parse_or(depth)]
        while (lexeme := self.peek()) is not None and lexeme.kind != ")":
            if lexeme.kind == "AND":
                self.take()
                following = self.peek()
                if following is None or following.kind in ("OR", ")", "AND"):
                    raise InvalidQuery(_nothing_after(lexeme), lexeme.position)
            parts.append(self.parse_or(depth))
        return parts[0] if len(parts) == 1 else And(tuple(parts), parts[0].position)

    def parse_or(self, depth: int) -> Node:
        parts = [self.parse_unary(depth)]
        while (lexeme := self.peek()) is not None and lexeme.kind == "OR":
            self.take()
            following = self.peek()
            if following is None or following.kind in ("OR", ")", "AND"):
                raise InvalidQuery(_nothing_after(lexeme), lexeme.position)
            parts.append(self.parse_unary(depth))
        return parts[0] if len(parts) == 1 else Or(tuple(parts), parts[0].position)

    def parse_unary(self, depth: int) -> Node:
        lexeme = self.take()
        if lexeme.kind in ("NOT", "-"):
            self._check_depth(depth + 1, lexeme.position)
            following = self.peek()
            if following is None or following.kind in ("OR", ")", "AND"):
                raise InvalidQuery(_nothing_after(lexeme), lexeme.position)
            return Not(self.parse_unary(depth + 1), lexeme.position)
        if lexeme.kind == "(":
            self._check_depth(depth + 1, lexeme.position)
            following = self.peek()
            if following is None:
                raise InvalidQuery(_NEVER_CLOSED, lexeme.position)
            if following.kind == ")":
                raise InvalidQuery(Problem.of(N_("empty parentheses")), lexeme.position)
            node = self.parse_and(depth + 1)
            closing = self.peek()
            if closing is None or closing.kind != ")":
                raise InvalidQuery(_NEVER_CLOSED, lexeme.position)
            self.take()
            return node
        if lexeme.kind == ")":
            raise InvalidQuery(_NEVER_OPENED, lexeme.position)
        if lexeme.kind in ("AND", "OR"):
            raise InvalidQuery(
                Problem.of(N_("'{word}' has nothing before it"), word=lexeme.text), lexeme.position
            )
        self.leaves += 1
        if self.leaves > self.limits.max_terms:
            raise InvalidQuery(
                Problem.of(
                    N_("too many terms (at most {count} in one filter)"),
                    count=self.limits.max_terms,
                ),
                lexeme.position,
            )
        return _leaf(lexeme)

    def _check_depth(self, depth: int, position: int) -> None:
        deepest = min(self.limits.max_depth, DEPTH_CEILING)
        if depth > deepest:
            raise InvalidQuery(
                Problem.ngettext(
                    "nesting too deep (at most {count} level)",
                    "nesting too deep (at most {count} levels)",
                    deepest,
                    count=deepest,
                ),
                position,
            )


_NEVER_CLOSED = Problem.of(N_("unbalanced parenthesis: '(' is never closed"))
_NEVER_OPENED = Problem.of(N_("unbalanced parenthesis: ')' has no '('"))


def _nothing_after(lexeme: _Lexeme) -> Problem:
    """'OR', '|', 'AND', 'NOT' or '-' with no term after it (the word as written)."""
    return Problem.of(N_("'{word}' has nothing after it"), word=lexeme.text)


def _leaf(lexeme: _Lexeme) -> Leaf:
    position = lexeme.position
    if lexeme.field == "category":
        return _category(lexeme.text, position)
    if lexeme.field in NAMED_FIELDS:
        return _named(NAMED_FIELDS[lexeme.field], lexeme.text, position)
    fields = (lexeme.field,) if lexeme.field else TEXT_FIELDS
    text = lexeme.text
    if lexeme.kind == "TERM" and text.endswith("*"):
        return _prefix(text, fields, position)
    if lexeme.kind == "PHRASE" and text.rstrip().endswith("*"):
        return _prefix(text.strip(), fields, position)
    words = analysis_words(text)
    if not words:
        if lexeme.kind == "PHRASE":
            raise InvalidQuery(Problem.of(N_("empty phrase")), position)
        raise InvalidQuery(Problem.of(N_("nothing to search for in '{text}'"), text=text), position)
    if fields == ("author",) and (reordered := surname_first(words)):
        words = reordered  # au:"Reeder B", as PubMed writes names, is au:"B Reeder"
    shown = " ".join(fold_word(w) for w in words)
    if len(words) == 1:
        return Word(singular(fold_word(words[0])), fields, position, shown)
    return Phrase(tuple(singular(fold_word(w)) for w in words), fields, position, shown)


def _prefix(text: str, fields: tuple[str, ...], position: int) -> Prefix | PhrasePrefix:
    """A word ending in '*' (distill*), or words joined by hyphens or spaces whose last ends in
    it (fine-tun*, "large language mod*"): the last word is a prefix of two letters or more."""
    stem = text[:-1]
    words = [fold_word(w) for w in analysis_words(stem)]
    if not words or "*" in stem or not stem[-1].isalnum():
        raise InvalidQuery(
            Problem.of(N_("'{text}': '*' ends one word, like distill* or fine-tun*"), text=text),
            position,
        )
    if len(words[-1]) < 2 and len(words) > 1:
        raise InvalidQuery(
            Problem.of(
                N_("'{text}': a prefix needs at least two letters ('{word}*' has one)"),
                text=text,
                word=words[-1],
            ),
            position,
        )
    if len(words[-1]) < 2:
        raise InvalidQuery(
            Problem.of(N_("'{text}': a prefix needs at least two letters"), text=text), position
        )
    if len(words) == 1:
        return Prefix(words[0], fields, position)
    terms = tuple(singular(w) for w in words[:-1])
    return PhrasePrefix(terms, words[-1], fields, position, " ".join(words))


def _category(text: str, position: int) -> Category:
    value = fold_category(text)
    if not re.fullmatch(r"[a-z-]+(\.[a-z-]+)?(\.\*|\*)?", value):
        raise InvalidQuery(
            Problem.of(N_("'{text}' is not a category like cs.LG, hep-th or cs.*"), text=text),
            position,
        )
    if value.endswith("*"):
        return Category(value.rstrip("*").rstrip(".") + ".", True, position)
    return Category(value, False, position)


def _named(kind: str, text: str, position: int) -> Category:
    """mesh:"CRISPR-Cas Systems" -> mesh:crispr cas systems; src: one of the sources."""
    name = fold_journal(text) if kind == "jr" else fold_name(text)
    if not name:
        raise InvalidQuery(
            Problem.of(
                N_("'{kind}:' needs a name, like {example}"), kind=kind, example=_EXAMPLES[kind]
            ),
            position,
        )
    if kind == "src" and name not in SOURCES:
        raise InvalidQuery(
            Problem.of(
                N_("'{text}' is no source; use src: with {sources}"),
                text=text,
                sources=", ".join(SOURCES),
            ),
            position,
        )
    return Category(f"{kind}:{name}", False, position)


_EXAMPLES = {"mesh": 'mesh:"Grid Cells"', "jr": 'jr:"Nature Neuroscience"', "src": "src:pubmed"}


def _has_positive(node: Node) -> bool:
    """Whether every way of matching needs some word present (no 'match everything but X')."""
    if isinstance(node, Not):
        return False
    if isinstance(node, And):
        return any(_has_positive(p) for p in node.parts)
    if isinstance(node, Or):
        return all(_has_positive(p) for p in node.parts)
    return True


def parse_query(source: str, limits: QueryLimits | None = None) -> Node:
    limits = limits or QueryLimits()
    if len(source) > limits.max_length:
        raise InvalidQuery(
            Problem.ngettext(
                "filter too long ({length} character, at most {count})",
                "filter too long ({length} characters, at most {count})",
                len(source),
                length=len(source),
                count=limits.max_length,
            )
        )
    if control := _CONTROL.search(source):
        code = f"U+{ord(control.group()):04X}"
        raise InvalidQuery(
            Problem.of(N_("control character ({code}) not allowed in a filter"), code=code),
            control.start(),
        )
    lexemes = _lex(source)
    if not lexemes:
        raise InvalidQuery(
            Problem.of(N_('empty filter: write a word, a "phrase" or a field like au:Name'))
        )
    parser = _Parser(lexemes, limits)
    node = parser.parse_and(0)
    if (rest := parser.peek()) is not None:
        raise InvalidQuery(_NEVER_OPENED, rest.position)
    if not _has_positive(node):
        raise InvalidQuery(
            Problem.of(
                N_(
                    "a filter needs at least one word to look for, not only exclusions "
                    "(e.g. 'distill* -self')"
                )
            )
        )
    return node


# -- the canonical form -----------------------------------------------------------------------

_FIELD_PREFIX = {("title",): "ti:", ("abstract",): "abs:", ("author",): "au:", TEXT_FIELDS: ""}


def canonical(node: Node) -> str:
    """How the filter was understood: `"kv cache" AND distill*`, `"fine tun*"`."""
    if isinstance(node, Word):
        return _FIELD_PREFIX[node.fields] + node.shown
    if isinstance(node, Phrase):
        return _FIELD_PREFIX[node.fields] + '"' + node.shown + '"'
    if isinstance(node, Prefix):
        return _FIELD_PREFIX[node.fields] + node.prefix + "*"
    if isinstance(node, PhrasePrefix):
        return _FIELD_PREFIX[node.fields] + '"' + node.shown + '*"'
    if isinstance(node, Category) and node.is_named:
        kind, name = node.value.split(":", 1)
        return f"{kind}:{name}" if " " not in name else f'{kind}:"{name}"'
    if isinstance(node, Category):
        return "cat:" + (node.value + "*" if node.is_prefix else node.value)
    if isinstance(node, Not):
        inner = canonical(node.part)
        return f"-{inner}" if not isinstance(node.part, And | Or) else f"-({inner})"
    if isinstance(node, And):
        return " AND ".join(
            f"({canonical(p)})" if isinstance(p, Or) else canonical(p) for p in node.parts
        )
    return " OR ".join(
        f"({canonical(p)})" if isinstance(p, And) else canonical(p) for p in node.parts
    )


def leaves(node: Node) -> list[tuple[Leaf, bool]]:
    """Every leaf with whether it counts positively (not under an odd number of NOTs)."""
    found: list[tuple[Leaf, bool]] = []

    def walk(n: Node, positive: bool) -> None:
        if isinstance(n, Not):
            walk(n.part, not positive)
        elif isinstance(n, And | Or):
            for part in n.parts:
                walk(part, positive)
        else:
            found.append((n, positive))

    walk(node, True)
    return found


class FilterKind(StrEnum):
    """What a filter is: words in the filter language, or "more like this" seed papers."""

    KEYWORDS = "keywords"
    LIKE = "like"


LIKE_PREFIX = "like:"  # like:2506.01234,2506.04321 (what /list, /export and /import show)
MAX_SEEDS = 10


def kind_of(source: str) -> FilterKind:
    """The one place a filter's kind is read from what was written."""
    if source.strip().lower().startswith(LIKE_PREFIX):
        return FilterKind.LIKE
    return FilterKind.KEYWORDS


@dataclass(frozen=True)
class Seeds:
    """A "more like this" filter as it matches: its seed papers' arXiv ids (without versions),
    which the service turns into the chat's model of them."""

    arxiv_ids: tuple[str, ...]

    @property
    def source(self) -> str:
        """As stored, whatever way the ids were written."""
        return LIKE_PREFIX + ",".join(self.arxiv_ids)


def read_seeds(source: str) -> Seeds:
    """'like:2506.01234, https://arxiv.org/abs/2506.04321' (or the ids alone, as /similar
    takes them) -> the seeds; what follows a '#' is a comment (/export names the seeds there).
    Raises InvalidQuery with a message for a person."""
    text = source.split("#", 1)[0].strip()
    if kind_of(text) is FilterKind.LIKE:
        text = text[len(LIKE_PREFIX) :]
    ids: list[str] = []
    for part in text.replace(",", " ").split():
        arxiv_id = read_arxiv_id(part)
        if arxiv_id is None:
            raise InvalidQuery(
                Problem.of(
                    N_("'{text}' is not an arXiv id (like 2506.01234, or its arxiv.org link)"),
                    text=part,
                )
            )
        if arxiv_id not in ids:
            ids.append(arxiv_id)
    if not ids:
        raise InvalidQuery(Problem.of(N_("give the arXiv ids of one or more papers")))
    if len(ids) > MAX_SEEDS:
        raise InvalidQuery(
            Problem.ngettext(
                "at most {count} seed paper",
                "at most {count} seed papers",
                MAX_SEEDS,
                count=MAX_SEEDS,
            )
        )
    return Seeds(tuple(ids))


@dataclass(frozen=True)
class FilterRules:
    """How every part of paperbot reads a filter (commands, planning, highlights): the parser
    bound to the settings' limits, and how many filters one chat may keep. One parser, so a
    filter that a command accepted is never refused later by a part using other limits."""

    limits: QueryLimits = QueryLimits()
    max_per_chat: int = 50

    def parse(self, source: str) -> Node:
        """The filter's tree; raises InvalidQuery with a message for a person."""
        return parse_query(source, self.limits)

    def compile(self, source: str) -> Node | Seeds:
        """A filter, stored or typed, as what it matches with, by its kind: the keyword
        program's tree, or a "more like this" filter's seeds. Raises InvalidQuery with a
        message for a person."""
        if kind_of(source) is FilterKind.LIKE:
            return read_seeds(source)
        return self.parse(source)
