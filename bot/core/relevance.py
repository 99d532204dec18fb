"""Relevance: what a chat likes, learnt from its 👍 and 👎, and "more like this" from seed papers.

    TextModel   TF-IDF over title and abstract, fitted on a window of stored papers
    Vectors     papers as L2-normalised rows of one text model (the model travels with them)
    ChatModel   a logistic regression per chat: 👍 positive, 👎 and a sample of others negative
    SimilarTo   cosine similarity to the seed papers' centroid, with a calibrated threshold

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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import sparse
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression

from bot.core.paper import Paper

Array = npt.NDArray[np.float64]

FORMAT = 1  # bump when the analyser below changes: stored models of another format are refitted
MIN_LIKES = 3  # until a chat has 3 👍, its order stays as the filters give it (issue 13)
NGRAMS = (1, 2)  # bigrams ("language model", "point cloud"): precision@10 at k=5 0.51 -> 0.55
MIN_DF = 3  # a term in fewer than 3 papers of the window is noise (typos, one paper's acronyms)
MAX_DF = 0.5  # a term in over half the window ("model", "propose" past stop words) says nothing
MAX_FEATURES = 30_000  # 4,100 papers give 33,000 terms at min_df 3; 30,000 keeps 99% of the mass
C = 1.0  # inverse regularisation
SOLVER = "lbfgs"
DISLIKE_WEIGHT = 3.0  # a 👎 says more than an unrated paper
BACKGROUND_WEIGHT = 0.3  # other stored papers are mostly not wanted, but a few are


class ModelMismatch(ValueError):
    """Vectors of one text model given to a model built on another: retrain on the current one."""


def paper_text(paper: Paper) -> str:
    return f"{paper.title}. {paper.abstract}"


@dataclass(frozen=True)
class Vectors:
    """Papers as rows (a scipy CSR matrix, each row L2-normalised) of the text model that made
    them."""

    matrix: Any  # scipy.sparse.csr_matrix, which ships no type hints
    model: TextModel

    def __len__(self) -> int:
        return int(self.matrix.shape[0])


class TextModel:
    """TF-IDF over title and abstract, fitted on a window of papers."""

    def __init__(self, vectorizer: TfidfVectorizer, fitted_on: int) -> None:
        self._vectorizer = vectorizer
        self.fitted_on = fitted_on  # how many papers the window held
        self.terms: list[str] = vectorizer.get_feature_names_out().tolist()
        digest = hashlib.sha256("\n".join(self.terms).encode())
        digest.update(np.asarray(vectorizer.idf_, dtype=np.float64).tobytes())
        self.fingerprint = digest.hexdigest()[:16]

    @classmethod
    def fit(cls, papers: Sequence[Paper]) -> TextModel:
        vectorizer = _vectorizer(None)
        vectorizer.fit([paper_text(p) for p in papers])
        return cls(vectorizer, len(papers))

    def vectors(self, papers: Sequence[Paper]) -> Vectors:
        if not papers:  # scikit-learn refuses an empty list
            return Vectors(sparse.csr_matrix((0, len(self.terms))), self)
        return Vectors(self._vectorizer.transform([paper_text(p) for p in papers]), self)

    def to_bytes(self) -> bytes:
        vocabulary = np.frombuffer("\n".join(self.terms).encode(), dtype=np.uint8)
        idf = np.asarray(self._vectorizer.idf_, dtype=np.float64)
        return _pack("text", {"fitted_on": self.fitted_on}, vocabulary=vocabulary, idf=idf)

    @classmethod
    def from_bytes(cls, data: bytes) -> TextModel:
        header, arrays = _unpack(data, "text")
        terms = arrays["vocabulary"].tobytes().decode().split("\n")
        vectorizer = _vectorizer({term: index for index, term in enumerate(terms)})
        vectorizer.idf_ = arrays["idf"]
        return cls(vectorizer, int(header["fitted_on"]))


def _vectorizer(vocabulary: dict[str, int] | None) -> TfidfVectorizer:
    return TfidfVectorizer(
        vocabulary=vocabulary,
        sublinear_tf=True,  # a word said ten times is not ten times as telling
        stop_words="english",
        ngram_range=NGRAMS,
        min_df=MIN_DF,
        max_df=MAX_DF,
        max_features=MAX_FEATURES,
        dtype=np.float64,
    )


class ChatModel:
    """A chat's taste: a linear classifier over one text model's vectors."""

    def __init__(
        self, coefficients: npt.NDArray[np.float32], intercept: float, fingerprint: str
    ) -> None:
        self.coefficients = coefficients
        self.intercept = intercept
        self.fingerprint = fingerprint  # of the text model it was trained on

    @classmethod
    def train(
        cls,
        text_model: TextModel,
        liked: Sequence[Paper],
        disliked: Sequence[Paper],
        background: Sequence[Paper],
    ) -> ChatModel | None:
        """👍 are positives, 👎 negatives weighted up, `background` (a sample of other stored
        papers) weak negatives; None below MIN_LIKES 👍."""
        if len(liked) < MIN_LIKES:
            return None
        rated = {_identity(p) for p in (*liked, *disliked)}
        others = [p for p in background if _identity(p) not in rated]
        papers = [*liked, *disliked, *others]
        labels = np.array([1] * len(liked) + [0] * (len(disliked) + len(others)))
        weights = np.array(
            [1.0] * len(liked)
            + [DISLIKE_WEIGHT] * len(disliked)
            + [BACKGROUND_WEIGHT] * len(others)
        )
        classifier = LogisticRegression(C=C, class_weight="balanced", solver=SOLVER, max_iter=1000)
        classifier.fit(text_model.vectors(papers).matrix, labels, sample_weight=weights)
        # float32: 120 KB a chat at 30,000 terms; the bytes keep it exactly, so scores round-trip
        coefficients = np.asarray(classifier.coef_[0], dtype=np.float32)
        return cls(coefficients, float(classifier.intercept_[0]), text_model.fingerprint)

    def fits(self, text_model: TextModel) -> bool:
        return self.fingerprint == text_model.fingerprint

    def scores(self, vectors: Vectors) -> Array:
        """One score per row, higher is more relevant (a log-odds)."""
        self._check(vectors)
        return np.asarray(vectors.matrix @ self.coefficients + self.intercept, dtype=np.float64)

    def reasons(self, vectors: Vectors, row: int = 0, n: int = 3) -> list[str]:
        """The paper's terms that weigh most for this chat: largest coefficient × tf-idf, a term
        left out when it repeats a word of one already given ('language' after 'language
        model')."""
        self._check(vectors)
        paper = vectors.matrix.getrow(row)
        contributions = paper.data * self.coefficients[paper.indices]
        chosen: list[str] = []
        seen: set[str] = set()
        for position in np.argsort(-contributions, kind="stable"):
            if contributions[position] <= 0 or len(chosen) == n:
                break
            term = vectors.model.terms[paper.indices[position]]
            if seen.isdisjoint(term.split()):
                chosen.append(term)
                seen.update(term.split())
        return chosen

    def to_bytes(self) -> bytes:
        header = {"fingerprint": self.fingerprint, "intercept": self.intercept}
        return _pack("chat", header, coefficients=self.coefficients)

    @classmethod
    def from_bytes(cls, data: bytes) -> ChatModel:
        header, arrays = _unpack(data, "chat")
        return cls(arrays["coefficients"], float(header["intercept"]), str(header["fingerprint"]))

    def _check(self, vectors: Vectors) -> None:
        if vectors.model.fingerprint != self.fingerprint:
            raise ModelMismatch("the chat model was trained on another text model")


class SimilarTo:
    """ "More like this": cosine similarity to the centroid of the seed papers' vectors.

    A centroid rather than arxiv-sanity-lite's exemplar SVM: it needs no training against the
    window (so nothing to refit when the window moves but the text model stays), it is the same
    for the same seeds, and its similarity is a cosine whose threshold a person can read."""

    def __init__(self, centroid: Array, threshold: float, fingerprint: str) -> None:
        self.centroid = centroid
        self.threshold = threshold
        self.fingerprint = fingerprint

    @classmethod
    def from_seeds(
        cls, text_model: TextModel, seeds: Sequence[Paper], threshold: float = 0.0
    ) -> SimilarTo:
        if not seeds:
            raise ValueError("a 'more like this' filter needs at least one seed paper")
        total = np.asarray(text_model.vectors(seeds).matrix.sum(axis=0), dtype=np.float64)[0]
        norm = float(np.linalg.norm(total))
        centroid = total / norm if norm else total
        return cls(centroid, threshold, text_model.fingerprint)

    def similarity(self, vectors: Vectors) -> Array:
        if vectors.model.fingerprint != self.fingerprint:
            raise ModelMismatch("the seeds were vectorised by another text model")
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
    text_model: TextModel, seeds: Sequence[Paper], window: Sequence[Paper], share: float = 0.01
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


def _identity(paper: Paper) -> str:
    return paper.arxiv_id or paper.title_key


# -- bytes: a JSON header line, then each array's raw bytes, the whole zlib-compressed ---------


def _pack(kind: str, header: dict[str, Any], **arrays: npt.NDArray[Any]) -> bytes:
    layout = {name: [array.dtype.str, list(array.shape)] for name, array in arrays.items()}
    head = {"format": FORMAT, "kind": kind, "arrays": layout, **header}
    body = b"".join(np.ascontiguousarray(array).tobytes() for array in arrays.values())
    return zlib.compress(json.dumps(head).encode() + b"\n" + body)


def _unpack(data: bytes, kind: str) -> tuple[dict[str, Any], dict[str, npt.NDArray[Any]]]:
    head_line, body = zlib.decompress(data).split(b"\n", 1)
    header = json.loads(head_line)
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
