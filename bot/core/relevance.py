"""Relevance: what a chat likes, learnt from its 👍 and 👎, and "more like this" from seed papers.

    TextModel   TF-IDF over title and abstract fitted on a window of stored papers, with its LSA
    Vectors     papers as rows of norm 1 of one text model (the model travels with them)
    ChatModel   a logistic regression per chat: 👍 positive, 👎 and a sample of others negative
    SimilarTo   cosine similarity to the seed papers' centroid, with a calibrated threshold

A Featurizer is what makes Vectors: a TextModel, or bot/core/semantic.py's SemanticModel that
adds a static embedding beside it; the chat models and SimilarTo take either.

Every model turns into bytes and back without pickle (a JSON header and raw numpy arrays), so a
database column keeps it and a restart doesn't refit. A chat model or a "more like this" scorer
remembers the fingerprint of the text model it was built on: given vectors of another it raises
ModelMismatch, and the caller retrains. The figures behind the settings come from
bench/relevance.py on ../shared/data/arxiv-days-2025 (12 days of training, 6 ranked).
"""

from __future__ import annotations

import hashlib
import json
import math
import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt
from scipy import sparse

if TYPE_CHECKING:
    from sklearn.feature_extraction.text import TfidfVectorizer

# scikit-learn is imported where it is used, not here: importing it is half of a process's start
# (4 of 10 s on a loaded 2-core VM), and a bot whose chats never rated anything never needs it.

from bot.core.paper import Paper

Array = npt.NDArray[np.float64]

FORMAT = 1  # bump when the analyser below changes: stored models of another format are refitted
# (analysed_text as set reads what format 1 read: the title once, then the abstract)
MIN_LIKES = 3  # until a chat has 3 👍, its order stays as the filters give it (issue 13)

# Figures: bench/relevance.py (60 users, 12 days fitted on, 6 ranked), precision@10 and AUC at
# k=5 👍 with everything else as set here; as set: 0.092 and 0.797.
#
# Bigrams rank as unigrams do (unigrams: 0.094, 0.802) and train as fast (14 ms against 13); they
# vectorise at 0.33 s per 1,000 papers against 0.14, but give reasons such as "point cloud".
# min_df 3: 34,709 terms on 4,587 papers (2: 67,892, mostly one paper's names); capped at 20,000
# terms, 88% of the tf-idf mass (10,000: 0.093, 0.795; 30,000: 0.092, 0.797).
NGRAMS = (1, 2)
MIN_DF = 3
MAX_FEATURES = 20_000
# LSA (a truncated SVD of the window's tf-idf) beside the terms: papers on one topic in other
# words meet. Without it 0.087, 0.769; 200 dimensions 0.092, 0.795. The two halves are
# L2-normalised and weighted alike, so each row has norm 1.
LATENT_DIMENSIONS = 100
C = 1.0  # 0.1 and 10 rank the same (0.092, 0.797 and 0.092, 0.795)
# liblinear's dual form (far fewer papers than columns) ranks a later day as lbfgs does (Spearman
# 0.999, the same top 10) in 19 ms of CPU (median of 8 fits, at most 39) against lbfgs's 580 ms
# and liblinear's primal 65 ms (at most 610).
SOLVER = "liblinear"
# A 👎 weighs thrice: the bench's 👎 (keyword matches outside the interest) cost a little as
# they weigh more (1: 0.092, 0.800; 10: 0.090, 0.786), and a real 👎 is deliberate.
DISLIKE_WEIGHT = 3.0
# Other stored papers are mostly unwanted but a few are wanted: weak negatives (0.1: 0.089,
# 0.785; 1: 0.093, 0.799).
BACKGROUND_WEIGHT = 0.3
# Title weighted apart, author overlap: both measured by bench/relevance.py --set (30 users),
# chosen on the first 9 days (6 fitted on, 3 ranked), reported on all 18 (12 and 6), in one run
# each against the model before it; precision@10 at k=5 (category, pair, authors users) and at
# k=30 for library users. Neither earns its place, so both stay off:
#   chosen days  as set 0.290 0.127 0.048, library 0.363; title ×3 0.283 0.140 0.045, 0.357;
#                authors (on top) 0.283 0.140 0.045, 0.363; alone (also at 40,000 terms)
#                0.293 0.127 0.045, 0.363
#   report days  as set 0.151 0.093 0.019, library 0.233; title ×3 0.152 0.089 0.019, 0.228;
#                authors (on top) 0.151 0.089 0.020, 0.230
# An author's token is one of ~150 in a paper, and an author user's later papers mostly bring
# new co-authors; the title's words are already the abstract's.
TITLE_REPEAT = 1
AUTHORS = False
# Author overlap apart from the text: a paper gains AUTHOR_WEIGHT (in log-odds) for each of its
# authors who wrote a 👍 paper. bench/relevance.py, 60 users, precision@10 at k=5 (category /
# pair / authors; library at k=30), against the model before it:
#   chosen on 9 days   0 .269/.193/.034, .412; 0.5 .267/.192/.191, .411; 0.7 .264/.183/.217,
#                      .384; 1 .247/.179/.256, .367; 2 .231/.154/.275, .275
#   reported, 18 days  0 .173/.078/.023, .223; 0.5 .173/.080/.100, .240
# A liked author's next paper is the author sample's interest, and a token among ~150 of the
# TF-IDF (AUTHORS above) could not say it; above 0.5 a 30-paper library's many co-authors crowd
# out its topic.
AUTHOR_WEIGHT = 0.5
# ...counted for at most AUTHOR_HITS of a paper's authors: one 👍 on a paper of a large
# collaboration (100 authors kept) would otherwise lift every later paper of it by 50 log-odds,
# above anything its text says. bench/relevance.py's figures are the same to the third digit
# with the cap as without (60 users, 18 days).
AUTHOR_HITS = 2
# Category overlap apart from the text: a paper gains CATEGORY_WEIGHT × the log-odds of each of
# its categories among the 👍 papers against the stored papers (positive ones only: a category no
# 👍 paper has says nothing). bench/relevance.py, 70 users, 18 days, precision@10 at k=5
# (category / pair / authors / venue): .191/.096/.090/.092 -> .289/.138/.087/.096, library
# (k=30) .233 -> .312. Chosen on 9 days where the users not drawn by category (authors, venue)
# stop losing: above 0.1 a liked category crowds out the interest's papers listed elsewhere
# (docs/PERFORMANCE.md has the weights tried). A category is one token among ~150 of a paper's,
# so the TF-IDF could not say it.
CATEGORY_WEIGHT = 0.1
# Tried and left out: the filter's 100 newest recent matches as weak positives (weight 0.03)
# while a chat has fewer than MIN_LIKES 👍, so that the starters' answers train a model at once.
# Chosen days: start 8 .120 -> .139, k=1 .132 -> .161; reported days: start 8 .086 -> .079
# (pair users .080 -> .064), k=1 .090 -> .102. The eight answers hold 0.6 👍 on average.
# Nor the 👍 papers' centroid added to the coefficients (chosen days, ×1: .304/.200/.162, ×3:
# .296/.203/.136, against .302/.205/.166: bench/relevance.py's tfidf, with its filter prior).


class ModelMismatch(ValueError):
    """Vectors of one text model given to a model built on another: retrain on the current one."""


def paper_text(paper: Paper) -> str:
    return f"{paper.title}. {paper.abstract}"


def analysed_text(paper: Paper) -> str:
    """What the TF-IDF reads: the title TITLE_REPEAT times (its words say what a paper is about
    more than the abstract's), the abstract, and with AUTHORS one token per author, so that a
    chat that liked an author's papers leans to their next one."""
    parts = [paper.title] * TITLE_REPEAT + [paper.abstract]
    if AUTHORS:
        parts.append(" ".join(author_token(a) for a in paper.authors))
    return ". ".join(parts)


def author_token(author: str) -> str:
    """One word for a name ('Qi Liu' -> 'authorqiliu'): not a word of any abstract."""
    return "author" + "".join(c for c in author.lower() if c.isalnum())


class Featurizer(Protocol):
    """What turns papers into vectors: a TextModel, or one with more columns beside it
    (bot/core/semantic.py). Its first len(terms) columns are the terms."""

    fingerprint: str
    terms: list[str]

    def vectors(self, papers: Sequence[Paper]) -> Vectors: ...


@dataclass(frozen=True)
class Vectors:
    """Papers as rows (a scipy CSR matrix, each row of norm 1) of the featurizer that made them."""

    matrix: Any  # scipy.sparse.csr_matrix, which ships no type hints
    model: Featurizer
    authors: tuple[tuple[str, ...], ...] = ()  # each row's authors (none: no author overlap)
    categories: tuple[tuple[str, ...], ...] = ()  # each row's categories (none: no overlap)

    def __len__(self) -> int:
        return int(self.matrix.shape[0])

    @cached_property
    def rows_by_author(self) -> dict[str, list[int]]:
        """Each author's rows: a chat model looks its 👍 authors up here (built once for all the
        chats that score these vectors)."""
        rows: dict[str, list[int]] = {}
        for row, names in enumerate(self.authors):
            for name in names:
                rows.setdefault(name, []).append(row)
        return rows

    @cached_property
    def rows_by_category(self) -> dict[str, list[int]]:
        """Each category's rows, as rows_by_author (a chat's few liked categories looked up,
        rather than every row's categories read for every chat: bench/relevance.py's 1,000
        chats score a 2,000-paper day in 0.7 s this way, 5.0 s reading the rows)."""
        rows: dict[str, list[int]] = {}
        for row, categories in enumerate(self.categories):
            for category in dict.fromkeys(categories):  # a category listed twice counts once
                rows.setdefault(category, []).append(row)
        return rows


class TextModel:
    """TF-IDF over title and abstract, fitted on a window of papers, with its LSA beside it."""

    def __init__(
        self, vectorizer: TfidfVectorizer, latent: npt.NDArray[np.float32], fitted_on: int
    ) -> None:
        self._vectorizer = vectorizer
        # LATENT_DIMENSIONS × terms, the SVD's components; float32 halves the stored model (8 MB)
        self._latent = latent
        self.fitted_on = fitted_on  # how many papers the window held
        self.terms: list[str] = vectorizer.get_feature_names_out().tolist()
        digest = hashlib.sha256("\n".join(self.terms).encode())
        digest.update(np.asarray(vectorizer.idf_, dtype=np.float64).tobytes())
        digest.update(latent.tobytes())
        self.fingerprint = digest.hexdigest()[:16]

    @classmethod
    def fit(cls, papers: Sequence[Paper]) -> TextModel:
        """Raises ValueError when no term is in MIN_DF papers of the window (a window too small)."""
        vectorizer = _vectorizer(None)
        weights = vectorizer.fit_transform([analysed_text(p) for p in papers])
        dimensions = min(LATENT_DIMENSIONS, weights.shape[1] - 1, len(papers) - 1)
        latent = np.zeros((0, weights.shape[1]), dtype=np.float32)  # too few papers: none
        if dimensions > 0:
            from sklearn.decomposition import TruncatedSVD

            svd = TruncatedSVD(dimensions, random_state=0).fit(weights)  # seeded: reproducible
            latent = np.asarray(svd.components_, dtype=np.float32)
        return cls(vectorizer, latent, len(papers))

    def vectors(self, papers: Sequence[Paper]) -> Vectors:
        width = len(self.terms) + self._latent.shape[0]
        if not papers:  # scikit-learn refuses an empty list
            return Vectors(sparse.csr_matrix((0, width)), self)
        weights = self._vectorizer.transform([analysed_text(p) for p in papers])
        authors = tuple(tuple(p.authors) for p in papers)
        categories = tuple(tuple(p.categories) for p in papers)
        if not self._latent.shape[0]:
            return Vectors(weights, self, authors, categories)
        from sklearn.preprocessing import normalize

        latent = normalize(weights @ self._latent.T)
        both = sparse.hstack([weights, sparse.csr_matrix(latent)], format="csr") / math.sqrt(2)
        return Vectors(both, self, authors, categories)

    def to_bytes(self) -> bytes:
        vocabulary = np.frombuffer("\n".join(self.terms).encode(), dtype=np.uint8)
        idf = np.asarray(self._vectorizer.idf_, dtype=np.float64)
        header = {"fitted_on": self.fitted_on}
        return _pack("text", header, vocabulary=vocabulary, idf=idf, latent=self._latent)

    @classmethod
    def from_bytes(cls, data: bytes) -> TextModel:
        header, arrays = _unpack(data, "text")
        terms = arrays["vocabulary"].tobytes().decode().split("\n")
        vectorizer = _vectorizer({term: index for index, term in enumerate(terms)})
        vectorizer.idf_ = arrays["idf"]
        return cls(vectorizer, arrays["latent"], int(header["fitted_on"]))


def _vectorizer(vocabulary: dict[str, int] | None) -> TfidfVectorizer:
    from sklearn.feature_extraction.text import TfidfVectorizer

    return TfidfVectorizer(
        vocabulary=vocabulary,
        sublinear_tf=True,  # a word said ten times is not ten times as telling
        stop_words="english",
        ngram_range=NGRAMS,
        min_df=MIN_DF,
        max_features=MAX_FEATURES,
        dtype=np.float64,
    )


class ChatModel:
    """A chat's taste: a linear classifier over one text model's vectors."""

    def __init__(
        self,
        coefficients: npt.NDArray[np.float32],
        intercept: float,
        fingerprint: str,
        authors: Sequence[str] = (),
        categories: dict[str, float] | None = None,
    ) -> None:
        self.coefficients = coefficients
        self.intercept = intercept
        self.fingerprint = fingerprint  # of the text model it was trained on
        self.authors = list(authors)  # who wrote its 👍 papers (AUTHOR_WEIGHT)
        # category -> its log-odds (CATEGORY_WEIGHT); None: kept before categories were
        # learnt, so the model doesn't fit and the chat's next ranking retrains it
        self.categories = None if categories is None else dict(categories)

    @classmethod
    def train(
        cls,
        text_model: Featurizer,
        liked: Sequence[Paper],
        disliked: Sequence[Paper],
        background: Sequence[Paper] | Vectors,
    ) -> ChatModel | None:
        """👍 are positives, 👎 negatives weighted up, `background` (a sample of other stored
        papers) weak negatives; None below MIN_LIKES 👍. The background may come vectorised
        (one sample of the window, vectorised once for every chat: a retrain then costs about
        the fit, not the 150 ms of vectorising 300 papers); rated papers are left out of
        background papers, while vectors are used as given."""
        if len(liked) < MIN_LIKES:
            return None
        if not isinstance(background, Vectors):
            rated = {_identity(p) for p in (*liked, *disliked)}
            others = [p for p in background if _identity(p) not in rated]
            background = text_model.vectors(others)
        _check(background, text_model.fingerprint)
        rated_vectors = text_model.vectors([*liked, *disliked]).matrix
        matrix = sparse.vstack([rated_vectors, background.matrix], format="csr")
        labels = np.array([1] * len(liked) + [0] * (len(disliked) + len(background)))
        weights = np.array(
            [1.0] * len(liked)
            + [DISLIKE_WEIGHT] * len(disliked)
            + [BACKGROUND_WEIGHT] * len(background)
        )
        # the dual visits papers in a random order: seeded, the same feedback gives the same model
        from sklearn.linear_model import LogisticRegression

        classifier = LogisticRegression(
            C=C, class_weight="balanced", solver=SOLVER, dual=True, max_iter=1000, random_state=0
        )
        classifier.fit(matrix, labels, sample_weight=weights)
        # float32: 80 KB a chat at 20,100 columns; the bytes keep it exactly, so scores round-trip
        coefficients = np.asarray(classifier.coef_[0], dtype=np.float32)
        authors = sorted({name for paper in liked for name in paper.authors})
        categories = category_odds(liked, background.categories)
        return cls(
            coefficients,
            float(classifier.intercept_[0]),
            text_model.fingerprint,
            authors,
            categories,
        )

    def fits(self, text_model: Featurizer) -> bool:
        return self.fingerprint == text_model.fingerprint and self.categories is not None

    def scores(self, vectors: Vectors) -> Array:
        """One score per row, higher is more relevant (a log-odds)."""
        self._check(vectors)
        scores = np.asarray(vectors.matrix @ self.coefficients + self.intercept, dtype=np.float64)
        if AUTHOR_WEIGHT and vectors.authors:
            rows = vectors.rows_by_author
            hits = [row for name in self.authors for row in rows.get(name, ())]
            counted = np.minimum(np.bincount(hits, minlength=len(scores)), AUTHOR_HITS)
            scores += AUTHOR_WEIGHT * counted
        if CATEGORY_WEIGHT and vectors.categories:
            rows = vectors.rows_by_category
            for category, odds in (self.categories or {}).items():
                scores[rows.get(category, [])] += CATEGORY_WEIGHT * odds
        return scores

    def reasons(self, vectors: Vectors, row: int = 0, n: int = 3) -> list[str]:
        """What lifts the paper most for this chat: its terms (coefficient × tf-idf), its
        authors who wrote a 👍 paper and its categories with positive odds, largest first; a
        term left out when it repeats a word of one already given ('language' after 'language
        model')."""
        self._check(vectors)
        paper = vectors.matrix[row]
        terms = vectors.model.terms
        lifts = [
            (float(value), terms[column])
            for value, column in zip(
                paper.data * self.coefficients[paper.indices], paper.indices, strict=True
            )
            if column < len(terms)  # a latent dimension has no word to show
        ]
        if AUTHOR_WEIGHT and vectors.authors:
            liked = set(self.authors)
            named = [name for name in vectors.authors[row] if name in liked][:AUTHOR_HITS]
            lifts += [(AUTHOR_WEIGHT, name) for name in named]
        if CATEGORY_WEIGHT and vectors.categories:
            odds = self.categories or {}
            lifts += [(CATEGORY_WEIGHT * odds[c], c) for c in vectors.categories[row] if c in odds]
        chosen: list[str] = []
        seen: set[str] = set()
        for lift, reason in sorted(lifts, key=lambda pair: -pair[0]):  # stable: ties keep order
            if lift <= 0 or len(chosen) == n:
                break
            if seen.isdisjoint(reason.split()):
                chosen.append(reason)
                seen.update(reason.split())
        return chosen

    def to_bytes(self) -> bytes:
        header = {
            "fingerprint": self.fingerprint,
            "intercept": self.intercept,
            "authors": self.authors,
            "categories": self.categories,
        }
        return _pack("chat", header, coefficients=self.coefficients)

    @classmethod
    def from_bytes(cls, data: bytes) -> ChatModel:
        header, arrays = _unpack(data, "chat")
        kept = header.get("categories")  # None in a model kept before category overlap
        return cls(
            arrays["coefficients"],
            float(header["intercept"]),
            str(header["fingerprint"]),
            [str(name) for name in header.get("authors", [])],  # a model kept before: none
            None if kept is None else {str(c): float(w) for c, w in kept.items()},
        )

    def _check(self, vectors: Vectors) -> None:
        _check(vectors, self.fingerprint)


def category_odds(liked: Sequence[Paper], background: Sequence[Sequence[str]]) -> dict[str, float]:
    """Each category of the 👍 papers with the log-odds of its share among them against its
    share among the background's papers, where that is positive. Both shares are smoothed
    (count / (n + 1), (count + 1) / (n + 1)): three 👍 in a category no stored paper is in
    give it log(3/4 × (n + 1)), not infinity."""
    others = Counter(c for categories in background for c in set(categories))
    mine = Counter(c for paper in liked for c in set(paper.categories))
    odds = {}
    for category, count in mine.items():
        share = count / (len(liked) + 1)
        elsewhere = (others[category] + 1) / (len(background) + 1)
        if share > elsewhere:
            odds[category] = math.log(share / elsewhere)
    return odds


class SimilarTo:
    """More like this: cosine similarity to the centroid of the seed papers' vectors.

    A centroid rather than arxiv-sanity-lite's exemplar SVM: it needs no training against the
    window (so nothing to refit when the window moves but the text model stays), it is the same
    for the same seeds, and its similarity is a cosine whose threshold a person can read."""

    def __init__(self, centroid: Array, threshold: float, fingerprint: str) -> None:
        self.centroid = centroid
        self.threshold = threshold
        self.fingerprint = fingerprint

    @classmethod
    def from_seeds(
        cls, text_model: Featurizer, seeds: Sequence[Paper], threshold: float = 0.0
    ) -> SimilarTo:
        if not seeds:
            raise ValueError("a 'more like this' filter needs at least one seed paper")
        total = np.asarray(text_model.vectors(seeds).matrix.sum(axis=0), dtype=np.float64)[0]
        norm = float(np.linalg.norm(total))
        centroid = total / norm if norm else total
        return cls(centroid, threshold, text_model.fingerprint)

    def similarity(self, vectors: Vectors) -> Array:
        _check(vectors, self.fingerprint)
        return np.asarray(vectors.matrix @ self.centroid, dtype=np.float64)

    def passes(self, vectors: Vectors) -> npt.NDArray[np.bool_]:
        return self.similarity(vectors) >= self.threshold

    def to_bytes(self) -> bytes:
        header = {"fingerprint": self.fingerprint, "threshold": self.threshold}
        return _pack("similar", header, centroid=self.centroid)

    @classmethod
    def from_bytes(cls, data: bytes) -> SimilarTo:
        header, arrays = _unpack(data, "similar")
        return cls(arrays["centroid"], float(header["threshold"]), str(header["fingerprint"]))


def calibrate(
    text_model: Featurizer, seeds: Sequence[Paper], window: Sequence[Paper], share: float = 0.01
) -> float:
    """The similarity threshold that about `share` of the window's papers (seeds left out) reach:
    the similarity of the ceil(share × n)-th most similar one."""
    seeded = {_identity(p) for p in seeds}
    others = [p for p in window if _identity(p) not in seeded]
    if not others:
        return 0.0
    similarity = SimilarTo.from_seeds(text_model, seeds).similarity(text_model.vectors(others))
    passing = min(max(math.ceil(share * len(others)), 1), len(others))
    return float(np.sort(similarity)[::-1][passing - 1])


def _check(vectors: Vectors, fingerprint: str) -> None:
    if vectors.model.fingerprint != fingerprint:
        raise ModelMismatch("vectors of another text model: retrain on the current one")


def _identity(paper: Paper) -> str:
    return paper.arxiv_id or paper.title_key


# -- bytes: a JSON header line, then each array's raw bytes, the whole zlib-compressed ---------


def _pack(kind: str, header: dict[str, Any], **arrays: npt.NDArray[Any]) -> bytes:
    layout = {name: [array.dtype.str, list(array.shape)] for name, array in arrays.items()}
    head = {"format": FORMAT, "kind": kind, "arrays": layout, **header}
    body = b"".join(np.ascontiguousarray(array).tobytes() for array in arrays.values())
    return zlib.compress(json.dumps(head).encode() + b"\n" + body)


def _unpack(data: bytes, kind: str) -> tuple[dict[str, Any], dict[str, npt.NDArray[Any]]]:
    """The header and arrays of bytes that _pack made; ValueError for anything else: refit."""
    try:
        head_line, body = zlib.decompress(data).split(b"\n", 1)
        header = json.loads(head_line)
    except (zlib.error, ValueError) as error:
        raise ValueError(f"not a {kind} model: refit") from error
    if header.get("format") != FORMAT or header.get("kind") != kind:
        raise ValueError(f"not a {kind} model of format {FORMAT}: refit")
    arrays: dict[str, npt.NDArray[Any]] = {}
    offset = 0
    for name, (dtype, shape) in header["arrays"].items():
        count = math.prod(shape)
        array = np.frombuffer(body, dtype=np.dtype(dtype), count=count, offset=offset)
        arrays[name] = array.reshape(shape).copy()
        offset += array.nbytes
    return header, arrays
