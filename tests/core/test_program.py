"""Compiled programs: the shapes a query compiles to, and what they match."""

from __future__ import annotations

import pytest

from bot.core.matcher import Document, compile_query, matches, run
from bot.core.matcher.document import AUTHOR, TEXT, TITLE
from bot.core.matcher.program import (
    AllOf,
    AllWords,
    Anchored,
    AnyOf,
    CategoryTest,
    NotTest,
    NoWords,
    PhrasePrefixTest,
    PhraseTest,
    PrefixTest,
    Program,
    WordsBut,
    WordTest,
)
from bot.core.paper import Paper
from bot.core.query import parse_query


@pytest.mark.parametrize(
    ("source", "program"),
    [
        ("model", WordTest(TEXT, "model")),
        ("ti:models", WordTest(TITLE, "model")),
        ('au:"Ann Lee"', PhraseTest(AUTHOR, ("ann", "lee"))),
        ("distill*", PrefixTest(TEXT, "distill")),
        ("fine-tun*", PhrasePrefixTest(TEXT, ("fine",), "tun")),
        ('ti:"large language mod*"', PhrasePrefixTest(TITLE, ("large", "language"), "mod")),
        ("cat:cs.LG", CategoryTest(("cs.lg",))),
        ("cat:math", CategoryTest(("math", "math."))),
        ("cat:cs.*", CategoryTest(("cs.",))),
        # An AND's plain words become one set test per field set, put first.
        ("alpha beta", WordsBut(TEXT, ("alpha", "beta"), ())),
        ("alpha -beta", WordsBut(TEXT, ("alpha",), ("beta",))),
        (
            "distill* alpha beta -gamma",
            AllOf(
                (
                    AllWords(TEXT, ("alpha", "beta")),
                    NoWords(TEXT, ("gamma",)),
                    PrefixTest(TEXT, "distill"),
                )
            ),
        ),
        (
            "alpha OR (au:lee -(beta gamma)) OR ti:delta",
            AnyOf(
                (
                    WordTest(TEXT, "alpha"),
                    AllOf(
                        (
                            WordTest(AUTHOR, "lee"),
                            NotTest(WordsBut(TEXT, ("beta", "gamma"), ())),
                        )
                    ),
                    WordTest(TITLE, "delta"),
                )
            ),
        ),
    ],
)
def test_compile_query(source: str, program: Program) -> None:
    assert compile_query(parse_query(source)) == program


PAPER = Paper(
    title="Self-Distillation of Diffusion Models",
    abstract="We distill a large diffusion model into a small one with a KV cache.",
    source="test",
    authors=("Ann Lee", "Robin Quériaux"),
    categories=("cs.LG", "stat.ML"),
)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("diffusion model", True),
        ('"diffusion model"', True),
        ('"large diffusion model"', True),
        ('"model diffusion"', False),
        ('ti:"kv cache"', False),
        ('abs:"kv cache"', True),
        ("distill*", True),
        ("ti:distill*", True),
        ("self-distil*", True),
        ("ti:self-distil*", True),
        ("abs:self-distil*", False),
        ("large-diffusion-mod*", True),
        ("large-diffusion-models*", False),  # model, not models, is there
        ("diffusion-mod*", True),
        ("kv-cach*", True),
        ("small-on*", True),
        ("small-onx*", False),
        ("au:ann-le*", True),
        ("au:ann-qu*", False),
        ("au:queriaux", True),
        ("au:quer*", True),
        ("au:diffusion", False),
        ("cat:cs", True),
        ("cat:math", False),
        ("cat:stat.*", True),
        ("diffusion -cache", False),
        ("(cache OR graph) -quantum", True),
    ],
)
def test_matches(source: str, expected: bool) -> None:
    assert matches(parse_query(source), PAPER) is expected


def test_anchored_checks_only_its_rest() -> None:
    """Its part is taken as passed: the index only runs it on candidates that hold the part."""
    program = Anchored(WordTest(TEXT, "graph"), CategoryTest(("cs.lg",)))
    assert run(program, Document(PAPER))
