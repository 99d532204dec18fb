"""Papers to rate to start: of a new filter's recent matches, the few whose 👍 or 👎 teach the
chat's ranking model most.

The eight most similar papers (to each other, or to the matches' centroid) would ask eight times
about one region of the filter's topics: the second answer there teaches little the first did not.
So the matches are clustered (TF-IDF, KMeans with k clusters) and the paper nearest each cluster's
centroid stands for its cluster, the largest clusters first: each answer tells about another part
of what the filter brings. bench/starters.py on the real listings of ../shared/data (9 filters,
their matches in the last 7 announcement days, 12 to 1,021 papers each; the data's primaries are
mostly cs.CV, cs.CL and cs.GR): the eight chosen so hold 2.6 primary categories and 6.6 of ten
topics (KMeans(10) clusters of the matches, other seeds) on average; the eight nearest the
matches' centroid 2.0 and 4.8; the eight newest (the filter's order before any rating) 2.3 and
5.8 (docs/PERFORMANCE.md).
"""

from __future__ import annotations

import warnings
from collections.abc import Collection, Sequence
from typing import Any

import numpy as np

from bot.core.buttons import Button
from bot.core.i18n import ENGLISH, Translator

STARTERS = 8  # papers offered to rate: Semantic Scholar asks for eight (five 👍, three 👎)
MOST_CANDIDATES = 500  # the newest of a broad filter's matches: 1,021 took 0.4 to 1.6 s
OFFERED = "offered to rate"  # the ledger's note on a row sent so (not an alert: never sent again)

Candidate = tuple[int, str]  # a paper's id and its text (title and abstract)


def choose_starters(
    candidates: Sequence[Candidate], *, rated: Collection[int] = (), k: int = STARTERS
) -> list[int]:
    """The ids of `k` candidates spread over their topics (all of them when there are no more
    than `k`), the largest topic's first; the same candidates give the same choice. Papers in
    `rated` are left out: their answer is known."""
    left = [(paper_id, text) for paper_id, text in candidates if paper_id not in rated]
    if len(left) <= k:
        return [paper_id for paper_id, _ in left]
    matrix = _vectors([text for _, text in left])
    if matrix is None:  # no word to tell them apart (stop words only): the first k
        return [paper_id for paper_id, _ in left[:k]]
    chosen = _nearest_centroids(matrix, k)
    taken = set(chosen)  # identical texts make fewer clusters than k: the rest in their order
    chosen += [i for i in range(len(left)) if i not in taken][: k - len(chosen)]
    return [left[i][0] for i in chosen]


def tune_button(filter_id: int, count: int, *, t: Translator = ENGLISH) -> Button:
    """Under a chat's first filter: `count` of its recent matches (STARTERS at most) to rate
    (bot/core/buttons.py reads the press as Tune)."""
    shown = min(count, STARTERS)
    label = t.ngettext(
        "🎯 Rate {count} paper to tune the ranking",
        "🎯 Rate {count} papers to tune the ranking",
        shown,
    )
    return Button(label.format(count=t.number(shown)), f"tune:{filter_id}")


def _vectors(texts: list[str]) -> Any | None:  # a scipy CSR matrix, which ships no hints
    """Rows of norm 1 (TF-IDF of single words, fitted on the candidates themselves: their own
    vocabulary tells their topics apart); None when no text holds a word."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(sublinear_tf=True, stop_words="english", dtype=np.float64)
    try:
        return vectorizer.fit_transform(texts)
    except ValueError:  # an empty vocabulary
        return None


def _nearest_centroids(matrix: Any, k: int) -> list[int]:
    """For each of KMeans' k clusters, largest first (ties: the lower label), the index of the
    row nearest its centroid (the highest dot product: rows have norm 1)."""
    from sklearn.cluster import KMeans
    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings():  # identical rows: fewer distinct clusters, said once here
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = KMeans(n_clusters=k, n_init=3, random_state=0).fit(matrix)
    labels = np.asarray(model.labels_)
    sizes = np.bincount(labels, minlength=k)
    similarity = np.asarray(matrix @ model.cluster_centers_.T)
    chosen = []
    for label in sorted(range(k), key=lambda c: (-sizes[c], c)):
        members = np.flatnonzero(labels == label)
        if members.size:
            chosen.append(int(members[np.argmax(similarity[members, label])]))
    return chosen
