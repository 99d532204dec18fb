"""The indexed matcher against the plain reference matcher, on real seed papers and on generated
filters and papers."""

from __future__ import annotations

import copy
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core.analysis import analyse_words, singular
from bot.core.highlight import highlights
from bot.core.listings import parse_listing
from bot.core.matcher import AnchorKind, Document, FilterIndex
from bot.core.paper import Paper
from bot.core.query import InvalidQuery, Node, Not, Word, parse_query
from tests import reference_matcher
from tests.conftest import SEEDS
from tests.threads import race


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


def small_paper(title: str, abstract: str = "") -> Paper:
    return Paper(title=title, abstract=abstract, source="test", authors=("Lee Chen",))


@pytest.mark.parametrize(
    ("source", "paper", "expected"),
    [
        ("fine-tun*", small_paper("Fine-Tuning Language Models"), True),
        ("fine-tun*", small_paper("", "a model fine tuned on code"), True),
        ("fine-tun*", small_paper("Fine-Tunes"), True),
        ("fine-tun*", small_paper("fine"), False),
        ("fine-tun*", small_paper("tuning"), False),
        ("fine-tun*", small_paper("tuning fine"), False),
        ("fine-tun*", small_paper("fine models, tuning"), False),
        ("fine-tun*", small_paper("fine", "tuning"), False),  # not across fields
        ("ti:fine-tun*", small_paper("", "fine-tuning"), False),
        ("abs:fine-tun*", small_paper("", "fine-tuning"), True),
        ('"large language mod*"', small_paper("Large Language Modelling"), True),
        ('"large language mod*"', small_paper("large models of language"), False),
        # the prefix reads the word as written: caches starts with cache (its term is cach)
        ("kv-cache*", small_paper("KV-caches"), True),
        ("kv-caches*", small_paper("KV-cache"), False),
        # full words fold plurals, as in a phrase
        ("model-distill*", small_paper("models distillation"), True),
        ("au:lee-ch*", small_paper(""), True),
        ("au:chen-le*", small_paper(""), False),
    ],
)
def test_phrase_prefix_matches(source: str, paper: Paper, expected: bool) -> None:
    index = FilterIndex()
    index.add(1, parse_query(source))
    assert index.match([paper]) == [[1] if expected else []]
    assert reference_matcher.matches(parse_query(source), paper) is expected


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
# Where a paper comes from, and what that gives it: (arxiv_id, preprint_doi, server, pmid).
ORIGINS = [
    (None, None, None, None),
    ("2601.00001", None, None, None),
    (None, "10.1101/286609", "bioRxiv", None),
    (None, "10.1101/2020.01.01.123456", "medRxiv", "31"),
    (None, None, None, "41999001"),
]
paper = st.builds(
    lambda title, abstract, authors, categories, origin, journal, abbreviations, mesh: Paper(
        title=title,
        abstract=abstract,
        source="gen",
        authors=tuple(authors),
        categories=tuple(categories),
        arxiv_id=origin[0],
        preprint_doi=origin[1],
        server=origin[2],
        pmid=origin[3],
        journal=journal,
        journal_abbreviations=tuple(abbreviations),
        mesh=tuple(mesh),
    ),
    text,
    text,
    st.lists(
        st.sampled_from(
            ["Hamed Hassani", "Robin Quériaux", "Ann Lee", "Lee Model", "Le-Le Li", "A. N. Lee"]
        ),
        max_size=3,
    ),
    st.lists(
        st.sampled_from(["cs.LG", "cs.CL", "math.NA", "hep-th", "stat.ML", "biorxiv.neuroscience"]),
        max_size=3,
    ),
    st.sampled_from(ORIGINS),
    st.sampled_from(
        [None, "Nature", "NATURE", "Nature (London)", "Nature Neuroscience", "Cell reports"]
        + ["The Lancet", "Lancet (London, England)", "Technology and health care : official"]
        + ["Proceedings of the National Academy of Sciences", "PNAS"]
    ),
    st.lists(
        st.sampled_from(["Nat Neurosci", "Nat. Neurosci.", "Proc Natl Acad Sci U S A", "Lancet"]),
        max_size=2,
    ),
    st.lists(st.sampled_from(["CRISPR-Cas Systems", "Mice", "Grid Cells"]), max_size=2),
)
leaf = st.one_of(
    word,
    word.map(lambda w: f"{w[:3]}*" if len(w) > 2 else w),
    st.lists(word, min_size=2, max_size=3).map(lambda ws: '"' + " ".join(ws) + '"'),
    # a phrase whose last word is a prefix: cut short, or whole (caches* is no term's prefix)
    st.tuples(st.lists(word, min_size=1, max_size=2), word, st.booleans()).map(
        lambda parts: "-".join(parts[0]) + "-" + (parts[1][:3] if parts[2] else parts[1]) + "*"
    ),
    st.lists(word, min_size=2, max_size=3).map(lambda ws: '"' + " ".join(ws)[:-1] + '*"'),
    st.tuples(st.sampled_from(["ti:", "abs:", "au:"]), word).map("".join),
    st.sampled_from(
        ["au:Hassani", 'au:"Ann Lee"', "cat:cs.LG", "cat:cs.*", "cat:math", "cat:hep-th", "au:lee*"]
        + ["au:ann-le*", "au:lee-mod*", "ti:kv-cach*", "abs:self-distill*"]
        + ["cat:biorxiv.neuroscience", "cat:biorxiv", 'mesh:"crispr cas systems"', "mesh:Mice"]
        + ["jr:nature", 'jr:"Nature Neuroscience"', "src:pubmed", "src:biorxiv", "src:arxiv"]
        + ["jr:lancet", 'jr:"The Lancet"', 'jr:"Technology and Health Care"', "jr:NATURE"]
        + ['jr:"nat neurosci"', "jr:pnas", 'jr:"Proc. Natl. Acad. Sci. U.S.A."', "jr:nat"]
        + ["src:medrxiv", "src:journal", 'au:"A Lee"', 'au:"Lee A"', 'au:"L L Li"', "au:l"]
        + ['au:"Lee AN"', 'au:"H Hassani"', 'au:"r queri*"']
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
        step(index, live, action, source, number)
        assert_agrees(index, live, papers)
    assert len(index) == len(live)


def step(
    index: FilterIndex,
    live: dict[int, Node],
    action: str,
    source: str,
    number: int,
    frequency: dict[str, float] | None = None,
) -> None:
    """One change to the index and to `live`, the filters it should hold."""
    if action == "add":
        try:
            live[number] = parse_query(source)
        except InvalidQuery:
            return
        index.add(number, live[number])
    elif action == "remove":
        index.remove(number)
        live.pop(number, None)
    elif action == "reanchor" and frequency is not None:
        index.reanchor(frequency)


def assert_agrees(index: FilterIndex, live: dict[int, Node], papers: list[Paper]) -> None:
    for item, hits in zip(papers, index.match(papers), strict=True):
        expected = [n for n, node in sorted(live.items()) if reference_matcher.matches(node, item)]
        assert hits == expected


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


# -- anchors kept, and moved when frequencies change -------------------------------------------


def paper_with(title: str, abstract: str = "", authors: tuple[str, ...] = ()) -> Paper:
    return Paper(title=title, abstract=abstract, source="test", authors=authors)


ALPHA_BETA_PAPERS = [
    paper_with("alpha and beta"),
    paper_with("alpha alone"),
    paper_with("beta alone"),
    paper_with("neither"),
]


def candidate_titles(index: FilterIndex, filter_id: int) -> list[str]:
    return [p.title for p in ALPHA_BETA_PAPERS if filter_id in index.candidates(Document(p))]


def test_reanchor_moves_a_filter_to_its_new_rarest_word() -> None:
    index = FilterIndex({"beta": 0.2})  # alpha never seen: rarest
    index.add(1, parse_query("alpha beta"))
    index.add(2, parse_query("beta"))  # one word: no choice, never moves
    assert index.anchors(1) == ((AnchorKind.TEXT_TERM, "alpha"),)
    assert candidate_titles(index, 1) == ["alpha and beta", "alpha alone"]
    assert index.match(ALPHA_BETA_PAPERS) == [[1, 2], [], [2], []]

    assert index.reanchor({"alpha": 0.6, "beta": 0.01}) == 1
    assert index.anchors(1) == ((AnchorKind.TEXT_TERM, "beta"),)
    assert index.postings() == {(AnchorKind.TEXT_TERM, "beta"): [1, 2]}
    assert candidate_titles(index, 1) == ["alpha and beta", "beta alone"]
    assert index.match(ALPHA_BETA_PAPERS) == [[1, 2], [], [2], []]
    assert index.reanchor({"alpha": 0.6, "beta": 0.01}) == 0  # nothing left to move

    index.remove(1)
    index.remove(2)
    assert index.postings() == {} and len(index) == 0


def test_a_filter_added_after_reanchor_uses_the_new_frequencies() -> None:
    index = FilterIndex({"beta": 0.2})
    index.reanchor({"alpha": 0.6, "beta": 0.01})
    index.add(1, parse_query("alpha beta"))
    assert index.anchors(1) == ((AnchorKind.TEXT_TERM, "beta"),)


def test_reanchor_moves_an_anchored_and_and_prefix_filters() -> None:
    """An AND found through an exact part checks only the rest; moved, it checks all of it."""
    index = FilterIndex({"alpha": 0.01})
    index.add(1, parse_query("cat:cs.LG alpha"))
    index.add(2, parse_query("alphabet* beta"))
    papers = [
        Paper(title="alpha", abstract="", source="t", categories=("cs.LG",)),
        Paper(title="alpha", abstract="", source="t", categories=("math.NA",)),
        Paper(title="alphabets beta", abstract="", source="t"),
        Paper(title="alphabets", abstract="", source="t"),
    ]
    before = index.match(papers)
    assert before == [[1], [], [2], []]
    assert index.anchors(2) == ((AnchorKind.TEXT_TERM, "beta"),)
    assert index.reanchor({"alpha": 0.9, "beta": 0.9}) == 2
    assert index.anchors(1) == ((AnchorKind.CATEGORY, "cs.lg"),)
    assert index.anchors(2) == ((AnchorKind.TEXT_PREFIX, "alphabet"),)
    assert index.match(papers) == before
    index.remove(1)
    index.remove(2)
    assert index.postings() == {}
    assert index.match(papers) == [[], [], [], []]


def test_matching_leaves_the_document_unchanged() -> None:
    index = FilterIndex()
    for number, source in enumerate(
        ["distill*", "au:lee*", "ti:self* model", '"kv cache"', "cat:cs.* model", "kv -self"]
        + ["self-distil*", '"language mod*"']
    ):
        index.add(number, parse_query(source))
    for paper in seed_papers():
        doc = Document(paper)
        fields = {name: getattr(doc, name) for name in Document.__slots__}
        copies = {name: copy.deepcopy(value) for name, value in fields.items()}
        index.match_document(doc)
        index.match_document(doc)
        assert {name: getattr(doc, name) for name in Document.__slots__} == copies
        assert all(getattr(doc, name) is value for name, value in fields.items())


# A Node the filter language would refuse (nothing but exclusions), for the unanchored paths.
NOTHING_BUT_NOT_SELF = Not(Word("self", ("title", "abstract"), 0, "self"), 0)
frequencies = st.dictionaries(
    st.sampled_from(sorted({singular(w.lower()) for w in VOCABULARY})),
    st.floats(0.0, 1.0),
    max_size=8,
)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["add", "add", "remove", "match", "reanchor"]),
            query,
            st.integers(0, 5),
            frequencies,
        ),
        min_size=1,
        max_size=25,
    ),
    st.lists(paper, min_size=1, max_size=4),
    frequencies,
)
def test_an_index_reanchored_along_the_way_agrees_with_the_reference(
    steps: list[tuple[str, str, int, dict[str, float]]],
    papers: list[Paper],
    first_frequency: dict[str, float],
) -> None:
    index = FilterIndex(first_frequency)
    live: dict[int, Node] = {6: NOTHING_BUT_NOT_SELF}
    index.add(6, NOTHING_BUT_NOT_SELF)
    for action, source, number, frequency in steps:
        step(index, live, action, source, number, frequency)
        assert_agrees(index, live, papers)
    for number in list(live):
        index.remove(number)
    assert index.postings() == {} and len(index) == 0
    assert index.match(papers) == [[] for _ in papers]


def test_threads_matching_with_one_index_agree() -> None:
    """The index's memo of words' prefixes, a few words long here, is started afresh while
    another thread reads it."""
    index = FilterIndex(word_memo_limit=3)
    for number, source in enumerate(["distill*", "kv*", "dist*", "au:has*", "lang* model"]):
        index.add(number, parse_query(source))
    docs = [Document(p) for p in seed_papers()]
    expected = [index.match_document(doc) for doc in docs]
    assert race(lambda i: index.match_document(docs[i]) == expected[i], len(docs), 20) == []
