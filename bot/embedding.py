"""The `semantic` extra at the edge: wordllama's static embedding, loaded from the weights that
ship inside its wheel, with downloads disabled. Nothing is fetched at run time, whether the extra
is installed or not (tests/test_offline.py runs the ranking with the network forbidden).

`PAPERBOT_RANKING_SEMANTIC`: "auto" uses the embedding when the extra is installed, "on" insists
(a clear error when it is missing), "off" ranks on TF-IDF alone.
"""

from __future__ import annotations

import importlib.util
import logging
import threading
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from bot.config import SettingsError

log = logging.getLogger(__name__)

MODEL = "l2_supercat"  # wordllama's default, 256 dimensions; its weights are in the wheel
DIMENSIONS = 256


class EmbeddingMissing(SettingsError):
    """PAPERBOT_RANKING_SEMANTIC=on, but the extra is not installed (told as a bad setting)."""


class Embedding:
    """wordllama's embed, loaded the first time a model needs it (a bot whose chats never rated
    anything never pays the second it takes), then kept for the process: it never changes."""

    name = f"wordllama {MODEL} {DIMENSIONS}"  # in the fingerprints of the models trained on it

    def __init__(self) -> None:
        self._model: Any = None
        self._lock = threading.Lock()

    def embed(self, texts: list[str]) -> npt.NDArray[Any]:
        with self._lock:
            if self._model is None:
                import wordllama

                folder = Path(wordllama.__file__).parent  # weights/, tokenizers/ in the wheel
                self._model = wordllama.WordLlama.load(
                    config=MODEL, cache_dir=folder, dim=DIMENSIONS, disable_download=True
                )
                log.info("ranking: wordllama's %s embedding beside TF-IDF", MODEL)
        return np.asarray(self._model.embed(texts))


def load_embedding(mode: str = "auto") -> Embedding | None:
    """The embedding the setting asks for, or None (TF-IDF alone)."""
    if mode == "off":
        return None
    if importlib.util.find_spec("wordllama") is None:
        if mode == "on":
            raise EmbeddingMissing(
                "PAPERBOT_RANKING_SEMANTIC=on, but the semantic extra is not installed: "
                "pip install 'paperbot[semantic]', or set it to auto or off"
            )
        return None
    return _SHARED


_SHARED = Embedding()  # one per process: the model is read-only, and loading it takes a second
