"""Static embeddings beside TF-IDF, for the `semantic` extra: a chat model or a "more like this"
scorer trained on these vectors sees the TextModel's columns and then the embedding's.

Nothing here loads a model: the edge that has the extra loads wordllama from its package folder
with downloads disabled (`WordLlama.load(cache_dir=<the package folder>, disable_download=True)`)
and hands over its `embed`; this module normalises and joins. Without the extra nothing imports
it, and ranking runs on TF-IDF alone.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import sparse

from bot.core.paper import Paper
from bot.core.relevance import TextModel, Vectors, paper_text

Embed = Callable[[list[str]], npt.NDArray[Any]]
# The embedding weighs as much as the text model's vector. bench/relevance.py, precision@10 and
# AUC at k=5: 0.25: 0.093, 0.799; 0.5: 0.093, 0.803; 1: 0.099, 0.798 (TF-IDF alone 0.092, 0.797).
EMBEDDING_WEIGHT = 1.0


class SemanticModel:
    """A TextModel's vectors with a static embedding of the same text beside them; each row
    has norm 1. `name` names the embedding model: another one gives another fingerprint."""

    def __init__(self, text_model: TextModel, embed: Embed, name: str) -> None:
        self.text_model = text_model
        self.terms = text_model.terms
        self._embed = embed
        self.dimensions = int(embed(["a"]).shape[1])
        key = f"{text_model.fingerprint}+{name}/{self.dimensions}"
        self.fingerprint = hashlib.sha256(key.encode()).hexdigest()[:16]

    def vectors(self, papers: Sequence[Paper]) -> Vectors:
        text_vectors = self.text_model.vectors(papers)
        text = text_vectors.matrix
        if not papers:
            return Vectors(sparse.csr_matrix((0, text.shape[1] + self.dimensions)), self)
        from sklearn.preprocessing import normalize  # imported when used, as in relevance.py

        embedded = normalize(np.asarray(self._embed([paper_text(p) for p in papers]), np.float64))
        both = sparse.hstack([text, EMBEDDING_WEIGHT * sparse.csr_matrix(embedded)], format="csr")
        return Vectors(
            both / math.sqrt(1 + EMBEDDING_WEIGHT**2),
            self,
            text_vectors.authors,
            text_vectors.categories,
        )
