"""The indexed matcher against the plain reference matcher, on real seed papers and on generated
filters and papers."""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core.analysis import analyse_words, singular
from bot.core.highlight import highlights
from bot.core.listings import parse_listing
from bot.core.matcher import FilterIndex
from bot.core.paper import Paper
from bot.core.query import InvalidQuery, Node, parse_query
from tests import reference_matcher
from tests.conftest import SEEDS


@cache
def seed_papers() -> tuple[Paper, ...]:
    found: dict[str, Paper] = {}
    for seed in sorted(SEEDS.iterdir()):
        for paper in parse_listing(seed.read_bytes(), source=seed.name).papers:
            found.setdefault(paper.title_key or paper.abstract_key, paper)
    return tuple(found.values())


def titles_matching(source: str) -> list[str]:
    index = FilterIndex()
    index.add(1, parse_query(source))
    return [
        p.title for p, hits in zip(seed_papers(), index.match(seed_papers()), strict=True) if hits
    ]


@pytest.mark.parametrize(
    ("source", "titles"),
    [
        (
            '"kv cache"',
            [
                "BeNice! Closing Looping's Inference-Memory Gap via KV-Sharing",
                "ElasticKV: a mixed-fidelity KV runtime built on the observation that "
                "target fidelity need not gate execution",
            ],
        ),
        ("distill* -self", []),
        ("au:Hassani", ["When to Follow the Teacher: Advantage-Based On-Policy Distillation"]),
        ("cat:cs.CL", ["Low-Bit N-Gram Embeddings for Language Models"]),
        ("cat:math.*", ["Phase Transition from Random Features to Fully Trainable Networks"]),
        ("cat:math", ["Phase Transition from Random Features to Fully Trainable Networks"]),
        (
            "au:queriaux",
            [
                "VERA: A Responsible AI Dashboard for Assessing LLM Deployments in Light "
                "of the EU AI Act"
            ],
        ),
        (
            'au:"Robin Quériaux"',
            [
                "VERA: A Responsible AI Dashboard for Assessing LLM Deployments "
                "in Light of the EU AI Act"
            ],
        ),
        ('ti:"n-gram embedding"', ["Low-Bit N-Gram Embeddings for Language Models"]),
    ],
)
def test_seed_matches(source: str, titles: list[str]) -> None:
    assert titles_matching(source) == titles


def test_distillation_papers_mention_self_distillation() -> None:
    assert len(titles_matching("distill*")) == 2
    assert titles_matching("distill* self") == titles_matching("distill*")


def test_plural_and_singular_meet() -> None:
    assert titles_matching("model") == titles_matching("models")
    assert len(titles_matching("model")) > 10


def test_highlights_mark_the_matched_words() -> None:
    paper = seed_papers()[2]  # BeNice!
    marked = {
        (h.field, (paper.title if h.field == "title" else paper.abstract)[h.start : h.end])
        for h in highlights(parse_query('"kv cache" OR ti:loop* -missing'), paper)
    }
    assert ("title", "Looping") in marked and ("abstract", "KV-cache") in marked
    assert ("abstract", "KV-caches") in marked
    assert not any(text == "Looped" for field, text in marked)  # ti: only


def test_adding_and_removing_filters_without_rebuilding() -> None:
    index = FilterIndex()
    index.add(1, parse_query('"kv cache"'))
    index.add(2, parse_query("au:Hassani OR cat:cs.CL"))
    index.add(3, parse_query("distill* -self"))
    papers = seed_papers()
    before = index.match(papers)
    assert sum(1 in hits for hits in before) == 2 and sum(2 in hits for hits in before) == 2
    index.remove(1)
    after = index.match(papers)
    assert not any(1 in hits for hits in after) and sum(2 in hits for hits in after) == 2
    index.add(1, parse_query("looping"))
    assert sum(1 in hits for hits in index.match(papers)) == 1
    assert len(index) == 3


# -- agreement with the reference, on generated filters and papers ---------------------------

VOCABULARY = [
    "model",
    "models",
    "cache",
    "kv",
    "distillation",
    "self",
    "graph",
    "language",
    "diffusion",
    "Schön",
    "schon",
    "learning",
    "quantum",
    "data",
    "the",
    "a",
]
word = st.sampled_from(VOCABULARY)
text = st.lists(
    st.one_of(word, st.sampled_from(["-", " ", ", ", "KV-cache", "self-distillation"])), max_size=25
).map(" ".join)
paper = st.builds(
    lambda title, abstract, authors, categories: Paper(
        title=title,
        abstract=abstract,
        source="gen",
        authors=tuple(authors),
        categories=tuple(categories),
    ),
    text,
    text,
    st.lists(
        st.sampled_from(["Hamed Hassani", "Robin Quériaux", "Ann Lee", "Lee Model"]), max_size=3
    ),
    st.lists(st.sampled_from(["cs.LG", "cs.CL", "math.NA", "hep-th", "stat.ML"]), max_size=3),
)
leaf = st.one_of(
    word,
    word.map(lambda w: f"{w[:3]}*" if len(w) > 2 else w),
    st.lists(word, min_size=2, max_size=3).map(lambda ws: '"' + " ".join(ws) + '"'),
    st.tuples(st.sampled_from(["ti:", "abs:", "au:"]), word).map("".join),
    st.sampled_from(
        ["au:Hassani", 'au:"Ann Lee"', "cat:cs.LG", "cat:cs.*", "cat:math", "cat:hep-th", "au:lee*"]
    ),
)
query = st.recursive(
    leaf,
    lambda inner: st.one_of(
        st.lists(inner, min_size=2, max_size=3).map(lambda parts: "(" + " ".join(parts) + ")"),
        st.lists(inner, min_size=2, max_size=3).map(lambda parts: "(" + " OR ".join(parts) + ")"),
        st.tuples(inner, inner).map(lambda pair: f"({pair[0]} -{pair[1]})"),
    ),
    max_leaves=6,
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(query, min_size=1, max_size=8), st.lists(paper, min_size=1, max_size=6))
def test_indexed_matcher_agrees_with_the_reference(sources: list[str], papers: list[Paper]) -> None:
    index = FilterIndex()
    parsed = {}
    for number, source in enumerate(sources):
        try:
            parsed[number] = parse_query(source)
        except InvalidQuery:
            continue
        index.add(number, parsed[number])
    for item, hits in zip(papers, index.match(papers), strict=True):
        expected = [n for n, node in parsed.items() if reference_matcher.matches(node, item)]
        assert hits == expected


def test_removing_a_prefix_filter_keeps_the_others_found() -> None:
    index = FilterIndex()
    index.add(1, parse_query("distill*"))
    index.add(2, parse_query("distillation*"))
    index.add(3, parse_query("dist*"))
    index.remove(1)
    index.remove(3)
    hits = index.match(seed_papers())
    assert sum(2 in h for h in hits) == 2 and not any({1, 3} & set(h) for h in hits)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.sampled_from(["add", "add", "remove", "match"]), query, st.integers(0, 5)),
        min_size=1,
        max_size=25,
    ),
    st.lists(paper, min_size=1, max_size=4),
)
def test_one_index_kept_in_step_agrees_with_the_reference(
    steps: list[tuple[str, str, int]], papers: list[Paper]
) -> None:
    """Filters come and go between matches, as in the running bot: what the index remembers
    between matches (words' prefixes, anchored programs) must follow every change."""
    index = FilterIndex()
    live: dict[int, Node] = {}
    for action, source, number in steps:
        if action == "add":
            try:
                live[number] = parse_query(source)
            except InvalidQuery:
                continue
            index.add(number, live[number])
        elif action == "remove":
            index.remove(number)
            live.pop(number, None)
        for item, hits in zip(papers, index.match(papers), strict=True):
            expected = [
                n for n, node in sorted(live.items()) if reference_matcher.matches(node, item)
            ]
            assert hits == expected
    assert len(index) == len(live)


@pytest.mark.parametrize(
    ("word", "term"),
    [
        ("models", "model"),
        ("studies", "study"),
        ("ties", "tie"),
        ("classes", "class"),
        ("boxes", "box"),
        ("caches", "cach"),
        ("cache", "cach"),
        ("wishes", "wish"),
        ("class", "class"),
        ("corpus", "corpus"),
        ("analysis", "analysis"),
        ("gas", "gas"),
        ("llms", "llm"),
        ("gpt4s", "gpt4s"),
        ("niche", "nich"),
        ("she", "she"),
    ],
)
def test_plurals_fold_to_one_term(word: str, term: str) -> None:
    assert singular(word) == term
    assert analyse_words(word.upper())[1] == [term]


def test_prefixes_added_and_removed_between_matches_are_found() -> None:
    """The index remembers which indexed prefixes each word it has seen starts with; a prefix
    that comes or goes later must count from the next match on."""
    index = FilterIndex()
    papers = seed_papers()
    index.add(1, parse_query("kv*"))
    assert sum(1 in hits for hits in index.match(papers)) == 2
    for number, source in enumerate(["distill*", "distillation*", "dist*"], start=2):
        index.add(number, parse_query(source))
        found = [
            p.title for p, hits in zip(papers, index.match(papers), strict=True) if number in hits
        ]
        assert found == titles_matching(source) and found, source
    assert len(titles_matching("dist*")) > 2
    index.remove(2)
    index.remove(4)
    hits = index.match(papers)
    assert sum(3 in h for h in hits) == 2 and not any({2, 4} & set(h) for h in hits)
    assert sum(1 in h for h in hits) == 2
