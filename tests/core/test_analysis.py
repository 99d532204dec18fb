"""Word analysis: the fast path agrees with the tokens, and its memo is safe to share between
threads."""

from __future__ import annotations

import pytest

from bot.core.analysis import AnalysisMemo, analyse_words, tokens
from tests.threads import race


@pytest.mark.parametrize(
    ("text", "folded", "terms"),
    [
        ("Diffusion Models", {"diffusion", "models"}, ["diffusion", "model"]),
        ("KV-caches, kv cache", {"kv", "caches", "cache"}, ["kv", "cach", "kv", "cach"]),
        ("Robin Quériaux", {"robin", "queriaux"}, ["robin", "queriaux"]),
        ("SCHÖN studies", {"schon", "studies"}, ["schon", "study"]),
        ("", set(), []),
    ],
)
def test_analyse_words(text: str, folded: set[str], terms: list[str]) -> None:
    assert analyse_words(text) == (folded, terms)
    assert analyse_words(text, AnalysisMemo(limit=1)) == (folded, terms)


# Texts with many distinct words, most of them not ASCII, so that a memo of a few words is
# started afresh on nearly every call.
TEXTS = [
    " ".join(f"{stem}{(i * 7 + j) % 50}s" for j, stem in enumerate(["Café", "Schön", "naïve"] * 4))
    + f" Quériaux{i} models {i}"
    for i in range(60)
]


def test_one_memo_shared_by_threads_gives_the_single_threaded_results() -> None:
    expected = [({t.folded for t in tokens(x)}, [t.term for t in tokens(x)]) for x in TEXTS]
    assert [analyse_words(text, AnalysisMemo()) for text in TEXTS] == expected
    memo = AnalysisMemo(limit=8)
    assert race(lambda i: analyse_words(TEXTS[i], memo) == expected[i], len(TEXTS), 30) == []
