"""How well a chat's 👍 and 👎 rank a later day, on real arXiv listings.

    python bench/relevance.py --days ../shared/data/arxiv-days-2025 --json [--users 80]

DIR holds one JSONL file per announcement day. The first two thirds of the days are the past (the
stored window the text model is fitted on, where feedback was given), each later day is ranked as
a digest would be. Simulated users, drawn with a fixed seed, a quarter of each kind (70 of the
default 80: only 10 venues qualify): a category (`cs.RO`), a cross-list pair (papers in both
`cs.CL` and `cs.SD`), an author set (an author with 5+ papers and their repeat co-authors), a
venue (papers whose arXiv comments name it, "Accepted at Interspeech 2025": a truth no feature of
the model reads, so it shows what a feature that restates how the other kinds are drawn costs
elsewhere). Interests holding over a quarter of the papers (cs.CV, cs.CL, cs.AI) are left out:
for them a random order is already good. Every user has 10+ papers of their interest in the
past and 3+ later, so the same users are measured at every k.

A user 👍 k of their interest's past papers (k = 1, 3, 5, 10; the k=5 ones among the k=10 ones)
and 👎 3 past papers that their keyword filter matched but that are not their interest. Two more
conditions measure /tune's eight papers (bot/core/starters.py, chosen among the filter's newest
matches of the past's last 7 days): `start 8`, the user answers them (👍 where the paper is of
their interest, 👎 otherwise; below MIN_LIKES 👍 the chat has no model and keeps its filter's
order), and `start 8 + k=5`, those answers and then the k=5 feedback. A library user (one with
30+ past papers of their interest) imports 30 of them, no 👎 (`library (k=30)` below).

    random    a random order
    keyword   a plausible filter the user would write: their interest's 3 most distinctive title
              words (largest p·log(p/q), p their share of the interest's past titles, q of all
              past titles), OR'ed; the matches first in the digest's order (a title hit, then
              more marked words), the rest after. It knows the whole past interest, not just the
              k 👍, so it is the same at every k: a strong baseline.
    tfidf     ChatModel (bot/core/relevance.py) on the 👍/👎 and a background sample of past
              papers, with its author and category overlap, plus the keyword filter's match
              strength as a prior (with_filter_prior: a match, a title hit); below MIN_LIKES
              👍, similarity to the 👍 papers' centroid (SimilarTo) with the same prior.
              Library users: the model alone (an import brings no filter).
    keyword+tfidf  what the chat sees in paperbot: its keyword filter's matches (all a digest
              lists) first, ordered by its tfidf model (no prior), then the others by the model;
              with DIGEST_PRIOR=1 the prior too, whose title hit is all that moves a digest.
    semantic  when wordllama is installed (--no-semantic skips it): the same ChatModel on the
              TextModel's vectors with wordllama's static embedding beside them
              (bot/core/semantic.py), the model loaded from its package folder, offline.

Per user and later day with 1+ relevant papers: precision@10, nDCG@10 and ROC AUC (ties count
half), averaged per user, then over users. Costs: `rank_seconds_per_1000_papers` scores one
chat's 1,000 papers given the day's vectors (computed once a day for all chats, reported apart);
`train_seconds_per_chat` is one ChatModel.train at k=10 given the background sample's vectors
(one sample of the past, vectorised once, as the bot can keep it); `cost` measures a 2,000-paper
day ranked for 1,000 chat models: the models loaded from bytes, the day vectorised once, every
chat scored, with the memory that numpy and Python allocate on the way (tracemalloc's peak).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import sys
import time
import tracemalloc
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import rankdata
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.digest import read_day  # noqa: E402
from bot.core import relevance  # noqa: E402
from bot.core.analysis import Token, tokens  # noqa: E402
from bot.core.matcher import Document, compile_query  # noqa: E402
from bot.core.matcher.document import ABSTRACT, TITLE  # noqa: E402
from bot.core.paper import Paper  # noqa: E402
from bot.core.query import FilterRules, Node, Word, leaves  # noqa: E402
from bot.core.relevance import (  # noqa: E402
    MIN_LIKES,
    ChatModel,
    Featurizer,
    SimilarTo,
    TextModel,
    Vectors,
    paper_text,
)
from bot.core.semantic import Embed, SemanticModel  # noqa: E402
from bot.core.starters import MOST_CANDIDATES, choose_starters  # noqa: E402
from bot.embedding import DIMENSIONS, MODEL, load_embedding  # noqa: E402

KS = (1, 3, 5, 10)
START = "start 8"  # the eight papers bot/core/starters.py offers, answered 👍 or 👎
START_K5 = "start 8 + k=5"  # those answers, then the k=5 feedback
RECENT_DAYS = 7  # the starters come from the filter's matches of the past's last days, as /tune
LIBRARY = 30  # an imported library's papers on one topic (docs/LIBRARY.md): 👍 that train alike
DISLIKES = 3
START_DISLIKES = True  # the starters' 👎 train the model as negatives
BACKGROUND = 300  # past papers a chat's model sees as weak negatives
MAX_SHARE = 0.25  # interests broader than this are left out
SEED = 13
# The tfidf column's prior: a paper gains FILTER_PRIOR (log-odds) for matching the user's keyword
# filter and as much again for a title hit, so that with few ratings the order does not fall
# below the filter's. 60 users, precision@10 at k=5 (category / pair / authors), on top of
# bot/core/relevance.py's AUTHOR_WEIGHT 0.5:
#   chosen on 9 days   0 .267/.192/.191; 0.25 .302/.205/.166; 0.5 .298/.218/.134;
#                      1 .296/.206/.071; 2 .284/.207/.048
#   reported, 18 days  0 .173/.080/.100; 0.25 .191/.096/.090 (at k=1, .057 -> .090)
# It pushes an author user's papers outside the filter's words down (.010 on the reported days).
# The bot does not apply it: a digest lists only its filters' matches, where the match half adds
# the same to every paper, and the title half alone does not earn its place (DIGEST_PRIOR).
FILTER_PRIOR = 0.25
# keyword+tfidf with the prior added, whose title hit is all that moves a digest's order.
# keyword+tfidf at k=5 (off, or on at FILTER_PRIOR 0.125, 0.25, 0.5), all users and category /
# pair / authors:
#   chosen on 9 days   off .204, .304/.208/.123; 0.125 .201, .307/.203/.120;
#                      0.25 .199, .302/.212/.108; 0.5 .195, .300/.219/.091
#   reported, 18 days  off .118, .199/.087/.069; 0.25 .118, .195/.091/.068
# Within noise, and falling with the weight on the chosen days: the bot leaves it out.
DIGEST_PRIOR = False
# A venue user follows the papers whose arXiv comments say they were accepted at (or submitted
# to) one venue: an interest that neither the text model (title and abstract), the categories
# nor the authors define, so a feature that only restates how the other samples are drawn
# does not help here. 28 venues of the days' fields; 10 have enough papers (ACL, CVPR,
# Interspeech, ICML, ICIP, IJCAI, SIGGRAPH, MICCAI, NeurIPS, EMNLP).
VENUE = re.compile(
    r"\b(AAAI|ACL|BMVC|CHI|COLING|CoRL|CVPR|ECCV|EMNLP|ICASSP|ICCV|ICDAR|ICIP|ICLR|ICME|ICML"
    r"|ICRA|IJCAI|Interspeech|IROS|KDD|MICCAI|MIDL|NAACL|NeurIPS|SIGGRAPH|SIGIR|WACV)\b",
    re.IGNORECASE,
)
WORDLLAMA = f"wordllama {MODEL} {DIMENSIONS}"

Scorer = Callable[[Sequence[Paper]], np.ndarray]


@dataclass
class User:
    kind: str
    name: str
    relevant: frozenset[str]  # arXiv ids of their interest's papers
    keyword: str = ""

    def wants(self, paper: Paper) -> bool:
        return paper.arxiv_id in self.relevant


# -- users -------------------------------------------------------------------------------------


def candidate_users(papers: list[Paper]) -> dict[str, list[User]]:
    by_category: dict[str, set[str]] = defaultdict(set)
    by_pair: dict[str, set[str]] = defaultdict(set)
    by_author: dict[str, set[str]] = defaultdict(set)
    by_venue: dict[str, set[str]] = defaultdict(set)
    together: Counter[tuple[str, str]] = Counter()
    for paper in papers:
        assert paper.arxiv_id
        for category in paper.categories:
            by_category[category].add(paper.arxiv_id)
        for pair in combinations(sorted(set(paper.categories)), 2):
            by_pair[" & ".join(pair)].add(paper.arxiv_id)
        for author in paper.authors:
            by_author[author].add(paper.arxiv_id)
        together.update(combinations(sorted(set(paper.authors)), 2))
        for venue in VENUE.findall(paper.comments or ""):
            by_venue[venue.upper()].add(paper.arxiv_id)
    circles: dict[str, set[str]] = defaultdict(set)
    for (one, other), count in together.items():
        if count >= 2:
            circles[one].add(other)
            circles[other].add(one)
    authors = {}
    for author, ids in by_author.items():
        if len(ids) >= 5:
            circle = {author} | circles[author]
            name = f"{author} and {len(circle) - 1} repeat co-authors"
            authors[name] = set().union(*(by_author[a] for a in circle))
    return {
        "category": [User("category", n, frozenset(i)) for n, i in by_category.items()],
        "pair": [User("pair", n, frozenset(i)) for n, i in by_pair.items()],
        "authors": [User("authors", n, frozenset(i)) for n, i in authors.items()],
        "venue": [User("venue", n, frozenset(i)) for n, i in by_venue.items()],
    }


def sample_users(
    papers: list[Paper], past: list[Paper], later: list[Paper], count: int
) -> list[User]:
    past_ids = {p.arxiv_id for p in past}
    later_ids = {p.arxiv_id for p in later}
    chosen: list[User] = []
    seen: set[frozenset[str]] = set()
    kinds = candidate_users(papers)
    for index, (_kind, users) in enumerate(sorted(kinds.items())):
        eligible = [
            u
            for u in sorted(users, key=lambda u: u.name)
            if len(u.relevant & past_ids) >= max(KS)
            and len(u.relevant & later_ids) >= 3
            and len(u.relevant) <= MAX_SHARE * len(papers)
            and u.relevant not in seen
        ]
        share = count // len(kinds) + (1 if index < count % len(kinds) else 0)
        for user in random.Random(SEED).sample(eligible, min(share, len(eligible))):
            seen.add(user.relevant)
            chosen.append(user)
    return chosen


def keyword_filter(user: User, past: list[Paper], titles: list[list[Token]]) -> str:
    """The interest's 3 most distinctive title words, OR'ed (`titles`: the past's title tokens)."""
    everywhere: Counter[str] = Counter()
    theirs: Counter[str] = Counter()
    spelling: dict[str, Counter[str]] = defaultdict(Counter)
    for paper, title in zip(past, titles, strict=True):
        words = {t.term for t in title if t.folded not in ENGLISH_STOP_WORDS}
        everywhere.update(words)
        if user.wants(paper):
            theirs.update(words)
            for token in title:
                spelling[token.term][token.folded] += 1
    mine = sum(1 for p in past if user.wants(p))

    def distinctive(term: str) -> float:
        p, q = theirs[term] / mine, everywhere[term] / len(past)
        return p * math.log(p / q)

    words = [w for w in theirs if theirs[w] >= 2 and len(w) > 2 and not w.isdigit()]
    best = sorted(words, key=lambda w: (-distinctive(w), w))[:3]
    return " OR ".join(spelling[w].most_common(1)[0][0] for w in best)


# -- methods -----------------------------------------------------------------------------------


def keyword_scores(query: Node, documents: list[Document]) -> np.ndarray:
    """Matches first, in the digest's order (render._rank: a title hit, then more marked words),
    the marks counted on the Document's terms: the filters here are words OR'ed, whose marks
    are their occurrences (highlights() finds the same, at ten times the cost)."""
    program = compile_query(query)
    words = {leaf.term for leaf, _ in leaves(query) if isinstance(leaf, Word)}
    scores = np.zeros(len(documents))
    for index, document in enumerate(documents):
        if program.matches(document):
            (title,), (abstract,) = document.sequences[TITLE], document.sequences[ABSTRACT]
            in_title = sum(term in words for term in title)
            in_abstract = sum(term in words for term in abstract)
            scores[index] = 1 + 1000 * (in_title > 0) + in_title + in_abstract
    return scores


# -- metrics -----------------------------------------------------------------------------------


def measures(scores: np.ndarray, labels: np.ndarray, rng: random.Random) -> tuple[float, ...]:
    """precision@10, nDCG@10, AUC; ties in the top 10 broken at random."""
    shuffled = list(range(len(scores)))
    rng.shuffle(shuffled)
    order = sorted(shuffled, key=lambda i: -scores[i])[:10]
    gains = labels[order]
    dcg = sum(g / math.log2(r + 2) for r, g in enumerate(gains))
    ideal = sum(1 / math.log2(r + 2) for r in range(min(10, int(labels.sum()))))
    return float(gains.mean()), dcg / ideal, auc(scores, labels)


def auc(scores: np.ndarray, labels: np.ndarray) -> float:
    """ROC AUC as the Mann-Whitney statistic, ties counted half (roc_auc_score's figure, without
    its 15 ms of checks a call)."""
    ranks = rankdata(scores)
    positives = int(labels.sum())
    negatives = len(labels) - positives
    return float(
        (ranks[labels == 1].sum() - positives * (positives + 1) / 2) / (positives * negatives)
    )


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


# -- the run -----------------------------------------------------------------------------------


@dataclass
class Split:
    """The past (fitted on, rated) and the later days (ranked), analysed once for every user:
    each later day's vectors per featurizer (`tfidf`, `semantic`) as a bot would keep them."""

    past: list[Paper]
    later: list[list[Paper]]
    featurizers: dict[str, Featurizer]
    vectors: dict[str, list[Vectors]]
    background: dict[str, Vectors]  # one sample of the past, vectorised once for every chat
    past_documents: list[Document]
    later_documents: list[list[Document]]
    titles: list[list[Token]]  # the past's title tokens
    recent: list[int]  # the past's last RECENT_DAYS days, as indices in `past`, newest day first


def split_days(days: list[list[Paper]], embed: Embed | None) -> Split:
    cut = len(days) * 2 // 3
    past = [p for day in days[:cut] for p in day]
    later = days[cut:]
    text_model = TextModel.fit(past)
    featurizers: dict[str, Featurizer] = {"tfidf": text_model}
    if embed is not None:
        featurizers["semantic"] = SemanticModel(text_model, embed, WORDLLAMA)
    sample = random.Random(SEED).sample(past, BACKGROUND)
    sizes = [len(day) for day in days[:cut]]
    starts = [sum(sizes[:d]) for d in range(cut)]
    recent = [starts[d] + i for d in reversed(range(max(0, cut - RECENT_DAYS), cut))
              for i in range(sizes[d])]  # fmt: skip
    return Split(
        past,
        later,
        featurizers,
        {name: [f.vectors(day) for day in later] for name, f in featurizers.items()},
        {name: f.vectors(sample) for name, f in featurizers.items()},
        [Document(p) for p in past],
        [[Document(p) for p in day] for day in later],
        [tokens(p.title) for p in past],
        recent,
    )


def rank_user(
    user: User, split: Split, rng: random.Random, timing: Timing
) -> dict[str, dict[int | str, tuple[float, ...]]]:
    """The user's figures: method -> k (or START, START_K5, LIBRARY) -> (p@10, nDCG@10, AUC)
    averaged over the later days."""
    user.keyword = keyword_filter(user, split.past, split.titles)
    query = FilterRules().parse(user.keyword)
    program = compile_query(query)
    theirs = [p for p in split.past if user.wants(p)]
    rng.shuffle(theirs)
    decoys = [
        p
        for p, d in zip(split.past, split.past_documents, strict=True)
        if not user.wants(p) and program.matches(d)
    ]
    disliked = rng.sample(decoys, min(DISLIKES, len(decoys)))
    days = [d for d, day in enumerate(split.later) if any(map(user.wants, day))]
    labels = {d: np.array([user.wants(p) for p in split.later[d]], dtype=float) for d in days}
    documents = split.later_documents
    keyword = {d: timing.time("keyword", keyword_scores, query, documents[d]) for d in days}
    feedback: dict[int | str, tuple[list[Paper], list[Paper]]] = {
        k: (theirs[:k], disliked) for k in KS
    }
    offered = starters(program, split)
    start_liked = [p for p in offered if user.wants(p)]
    start_disliked = [p for p in offered if not user.wants(p)] if START_DISLIKES else []
    feedback[START] = (start_liked, start_disliked)
    more = [p for p in theirs[:5] if p not in start_liked]
    feedback[START_K5] = (start_liked + more, start_disliked + disliked)
    figures: dict[str, dict[int | str, tuple[float, ...]]] = defaultdict(dict)
    for k, (liked, unliked) in feedback.items():
        scores: dict[str, dict[int, np.ndarray]] = {"keyword": keyword, "random": {}}
        for d in days:
            scores["random"][d] = timing.time("random", random_scores, rng, len(split.later[d]))
        raw: dict[int, np.ndarray] = keyword  # the tfidf model's own scores
        for name, featurizer in split.featurizers.items():
            background = split.background[name]
            if isinstance(k, str) and len(liked) < MIN_LIKES:
                # no model yet: the chat's order is its filter's (bot/service/ranking.py)
                scores[name] = keyword
                continue
            scorer = train(featurizer, liked, unliked, background, name, timing)
            model = {d: timing.time(name, scorer, split.vectors[name][d]) for d in days}
            raw = model if name == "tfidf" else raw
            # the default model: the filter's match strength as a prior the model adjusts
            prior = {d: (keyword[d] > 0, keyword[d] >= 1000) for d in days}
            scores[name] = {d: with_filter_prior(model[d], *prior[d]) for d in days}
        # what a chat sees: its filter's matches first (a digest lists only them), ranked by
        # its model within (bot/service/ranking.py: no prior); then the rest by the model
        # (log-odds and cosines are far below 1e6)
        scores["keyword+tfidf"] = {d: (keyword[d] > 0) * 1e6 + digest(raw[d], keyword[d])
                                   for d in days}  # fmt: skip
        for name, by_day in scores.items():
            rows = [measures(by_day[d], labels[d], rng) for d in days]
            figures[name][k] = tuple(map(mean, zip(*rows, strict=True)))
    figures["start"][START] = (len(offered), len(start_liked))
    if len(theirs) >= LIBRARY:
        # the library user: LIBRARY imported papers of their topic, no 👎
        for name, featurizer in split.featurizers.items():
            model = ChatModel.train(featurizer, theirs[:LIBRARY], [], split.background[name])
            assert model is not None
            rows = [measures(model.scores(split.vectors[name][d]), labels[d], rng) for d in days]
            figures[name][LIBRARY] = tuple(map(mean, zip(*rows, strict=True)))
        for name in ("keyword", "random"):
            figures[name][LIBRARY] = figures[name][max(KS)]
    return figures


def with_filter_prior(scores: np.ndarray, matched: np.ndarray, in_title: np.ndarray) -> np.ndarray:
    """A model's scores with the filter's prior added (FILTER_PRIOR: a match, a title hit)."""
    return scores + FILTER_PRIOR * (matched.astype(np.float64) + in_title.astype(np.float64))


def digest(model: np.ndarray, keyword: np.ndarray) -> np.ndarray:
    """The model's scores as a digest orders its matches: alone, or with DIGEST_PRIOR the
    filter's prior added (a match, a title hit)."""
    if not DIGEST_PRIOR:
        return model
    return with_filter_prior(model, keyword > 0, keyword >= 1000)


def starters(program: Any, split: Split) -> list[Paper]:
    """The papers /tune offers (bot/service/starters.py): choose_starters among the filter's
    newest MOST_CANDIDATES matches of the past's last RECENT_DAYS days."""
    matches = [i for i in split.recent if program.matches(split.past_documents[i])]
    candidates = [(i, paper_text(split.past[i])) for i in matches[:MOST_CANDIDATES]]
    return [split.past[i] for i in choose_starters(candidates)]


def random_scores(rng: random.Random, size: int) -> np.ndarray:
    return np.array([rng.random() for _ in range(size)])


def train(
    featurizer: Featurizer,
    liked: list[Paper],
    disliked: list[Paper],
    background: Vectors,
    method: str,
    timing: Timing,
) -> Callable[[Vectors], np.ndarray]:
    """The chat's scorer; below MIN_LIKES 👍, closeness to the liked papers (SimilarTo), so that
    a figure exists."""
    if len(liked) < MIN_LIKES:
        return SimilarTo.from_seeds(featurizer, liked).similarity
    started = time.perf_counter()
    model = ChatModel.train(featurizer, liked, disliked, background)
    assert model is not None
    if len(liked) == max(KS):
        timing.trained(method, time.perf_counter() - started, model)
    return model.scores


class Timing:
    """Seconds spent ranking per method and papers ranked; ChatModel.train times at k=10, and
    the TF-IDF models trained then (for the cost run)."""

    def __init__(self) -> None:
        self.seconds: Counter[str] = Counter()
        self.papers: Counter[str] = Counter()
        self.train_seconds: dict[str, list[float]] = defaultdict(list)
        self.models: list[ChatModel] = []

    def time(self, method: str, function: Callable[..., np.ndarray], *args: Any) -> np.ndarray:
        started = time.perf_counter()
        result = function(*args)
        self.seconds[method] += time.perf_counter() - started
        self.papers[method] += len(result)
        return result

    def trained(self, method: str, seconds: float, model: ChatModel) -> None:
        self.train_seconds[method].append(seconds)
        if method == "tfidf":
            self.models.append(model)

    def figures(self, method: str) -> dict[str, float]:
        seconds = self.seconds[method] / self.papers[method] * 1000 if self.papers[method] else 0
        train = self.train_seconds.get(method)
        return {
            "rank_seconds_per_1000_papers": round(seconds, 5),
            "train_seconds_per_chat": round(mean(train), 4) if train else 0.0,
        }


def evaluate(days: list[list[Paper]], count: int, embed: Embed | None) -> dict[str, object]:
    started = time.perf_counter()
    split = split_days(days, embed)
    prepare_seconds = time.perf_counter() - started
    everything = [p for day in days for p in day]
    users = sample_users(everything, split.past, [p for d in split.later for p in d], count)
    timing = Timing()
    per_user = [rank_user(u, split, random.Random(SEED * 1000 + n), timing)
                for n, u in enumerate(users)]  # fmt: skip
    text_model = split.featurizers["tfidf"]
    assert isinstance(text_model, TextModel)
    report: dict[str, object] = {
        "users": len(users),
        "user_kinds": dict(Counter(u.kind for u in users)),
        "days": len(days),
        "past_days": len(days) - len(split.later),
        "ranked_days": len(split.later),
        "papers": len(everything),
        "terms": len(text_model.terms),
        "fit_and_vectorise_seconds": round(prepare_seconds, 2),
    }
    for name in ("random", "keyword", *split.featurizers, "keyword+tfidf"):
        report[name] = {
            metric: {
                k: round(mean([f[name][k][i] for f in per_user]), 3) for k in (*KS, START, START_K5)
            }  # fmt: skip
            for i, metric in enumerate(("precision_at_10", "ndcg_at_10", "auc"))
        } | timing.figures(name.removeprefix("keyword+"))
    offered = [f["start"][START] for f in per_user]
    report[START] = {
        "offered": round(mean([o for o, _ in offered]), 2),
        "liked": round(mean([liked for _, liked in offered]), 2),
        "users_with_a_model": sum(liked >= MIN_LIKES for _, liked in offered),
    }
    # every user sample on its own: precision@10 at k=5 per kind, and the library users (those
    # with LIBRARY past papers of their interest) at k=LIBRARY
    samples: dict[str, list[tuple[User, dict[str, dict[int | str, tuple[float, ...]]]]]] = (
        defaultdict(list)
    )
    for user, figures in zip(users, per_user, strict=True):
        samples[user.kind].append((user, figures))
        if LIBRARY in figures["tfidf"]:
            samples[f"library (k={LIBRARY})"].append((user, figures))

    def precision(rows: list[Any], name: str, k: int | str) -> float:
        return round(mean([f[name][k][0] for _, f in rows]), 3)

    report["precision_at_10_by_sample"] = {
        sample: {"users": len(rows)}
        | {
            name: precision(rows, name, LIBRARY if sample.startswith("library") else 5)
            for name in ("random", "keyword", *split.featurizers)
            + (() if sample.startswith("library") else ("keyword+tfidf",))  # no filter: no digest
        }
        | {
            f"{name} {k}": precision(rows, name, k)
            for name in split.featurizers
            for k in (START, START_K5)
            if not sample.startswith("library")
        }
        for sample, rows in sorted(samples.items())
    }
    report["examples"] = [f"{u.kind} {u.name}: {u.keyword}" for u in users[::10]]
    report["cost"] = cost(text_model, everything, timing.models)
    return report


def cost(text_model: TextModel, papers: list[Paper], trained: list[ChatModel]) -> dict[str, object]:
    """A 2,000-paper day ranked for 1,000 chats: the text model and chat models loaded from
    bytes (the trained ones repeated), the day vectorised once, every chat scored."""
    day = papers[:2000]
    stored = [trained[i % len(trained)].to_bytes() for i in range(1000)]
    text_bytes = text_model.to_bytes()
    tracemalloc.start()
    started = time.perf_counter()
    loaded = TextModel.from_bytes(text_bytes)
    models = [ChatModel.from_bytes(b) for b in stored]
    loaded_seconds = time.perf_counter() - started
    started = time.perf_counter()
    vectors = loaded.vectors(day)
    vectorise_seconds = time.perf_counter() - started
    started = time.perf_counter()
    for model in models:
        model.scores(vectors)
    score_seconds = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {
        "papers": len(day),
        "chats": len(models),
        "load_seconds": round(loaded_seconds, 2),
        "vectorise_seconds": round(vectorise_seconds, 2),
        "score_seconds": round(score_seconds, 2),
        "total_seconds": round(loaded_seconds + vectorise_seconds + score_seconds, 2),
        "peak_traced_mb": round(peak / 2**20, 1),
        "text_model_bytes": len(text_bytes),
        "chat_model_bytes": round(mean([len(b) for b in stored])),
    }


def load_wordllama() -> Embed | None:
    """wordllama's embed as the bot loads it (bot/embedding.py: from its package folder, with
    downloads disabled; None when the extra is not installed); each text embedded once, as a bot
    would store a paper's vector."""
    embedding = load_embedding("auto")
    if embedding is None:
        return None
    embedded: dict[str, np.ndarray] = {}

    def embed(texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in embedded]
        if missing:
            embedded.update(zip(missing, embedding.embed(missing), strict=True))
        return np.array([embedded[t] for t in texts])

    return embed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--days", type=Path, default=ROOT.parent / "shared/data/arxiv-days-2025")
    parser.add_argument("--users", type=int, default=80, help="simulated users (default 80)")
    parser.add_argument("--json", action="store_true", help="print JSON (the default)")
    parser.add_argument(
        "--first",
        type=int,
        default=0,
        help="only the first N days (choose settings on these, report on all: honest)",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a bot/core/relevance.py or bench setting for this run (TITLE_REPEAT=3, AUTHORS=1)",
    )
    parser.add_argument("--no-semantic", action="store_true", help="skip wordllama if installed")
    arguments = parser.parse_args()
    days = [read_day(path) for path in sorted(arguments.days.glob("*.jsonl"))]
    if arguments.first:
        days = days[: arguments.first]
    for setting in arguments.set:
        name, _, value = setting.partition("=")
        module = relevance if hasattr(relevance, name) else sys.modules[__name__]
        current = getattr(module, name)  # AttributeError names a setting that doesn't exist
        setattr(module, name, type(current)(int(value) if isinstance(current, bool) else value))
    embed = None if arguments.no_semantic else load_wordllama()
    print(json.dumps(evaluate(days, arguments.users, embed), indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
