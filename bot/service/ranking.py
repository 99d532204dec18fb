"""Each chat's taste, learnt from its 👍 and 👎: papers scored for the chat, a reason shown.

The TF-IDF model is fitted on the latest `WINDOW` stored papers and kept in the database (a
restart loads it); it is fitted again when as many new papers as half the window have arrived
since. A chat's model is trained when its ratings changed (after a press, a little later and off
the event loop, or at the latest when the chat's papers are ranked) and when the TF-IDF model it
was trained on was replaced. Chats with fewer than three 👍 are not ranked.

With the `semantic` extra (bot/embedding.py), the models see a static embedding of the paper
beside its TF-IDF terms: `features()` is then a SemanticModel over the text model, and its
fingerprint differs, so turning the extra on or off retrains what was trained without it.
"""

from __future__ import annotations

import asyncio
import logging
import random
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from bot.core.paper import Paper
from bot.core.relevance import MIN_LIKES, ChatModel, Featurizer, TextModel
from bot.core.semantic import SemanticModel
from bot.embedding import Embedding
from bot.service import Clock
from bot.store import Database, feedback, library, papers

log = logging.getLogger(__name__)

WINDOW = 4000  # papers the TF-IDF model learns its vocabulary from: about a week of arXiv CS
BACKGROUND = 300  # unrated stored papers a chat model takes as weak negatives
RETRAIN_AFTER = 2.0  # seconds after a press: a burst of presses trains once


@dataclass(frozen=True)
class Score:
    value: float  # log-odds that the chat wants the paper
    why: list[str]  # the paper's terms that weigh most for the chat


class Ranker:
    def __init__(
        self,
        database: Database,
        *,
        clock: Clock,
        window: int = WINDOW,
        embedding: Embedding | None = None,
    ) -> None:
        self.database, self.clock, self.window = database, clock, window
        self.embedding = embedding
        self.text: TextModel | None = None
        self._semantic: SemanticModel | None = None  # the text model with the embedding beside
        self.fitted_on = 0  # stored papers when the text model was fitted
        self.models: dict[int, ChatModel | None] = {}  # chat -> its model (None: fewer 👍)
        self.stale: set[int] = set()  # chats whose ratings changed since their model was trained
        self.lock = threading.Lock()  # training and ranking run in worker threads
        self.fitting = threading.Lock()  # the text model's fit (taken inside `lock` too)
        self.pending: dict[int, asyncio.Task[None]] = {}

    # -- the text model ------------------------------------------------------------------------

    def text_model(self) -> TextModel | None:
        """The TF-IDF model: loaded, or fitted when missing or when the window has moved by half
        (None while fewer than ten papers are stored)."""
        # one fit at a time: a chat's training and a "more like this" filter asking at once
        # would both fit, and both insert the stored model's one row
        with self.fitting:
            return self._text_model()

    def _text_model(self) -> TextModel | None:
        with self.database.session() as session:
            stored = papers.count_papers(session)
            if self.text is None:
                found = feedback.text_model(session)
                if found is not None:
                    self.text, self.fitted_on = TextModel.from_bytes(found[0]), found[1]
            if self.text is not None and stored - self.fitted_on < self.window // 2:
                return self.text
            window = [paper for _, paper in papers.latest_papers(session, limit=self.window)]
        if len(window) < 10:
            return self.text
        self.text, self.fitted_on = TextModel.fit(window), stored
        with self.database.session() as session:
            feedback.save_text_model(
                session, data=self.text.to_bytes(), papers=stored, now=self.clock()
            )
        log.info("ranking: TF-IDF fitted on the latest %d papers", len(window))
        return self.text

    def features(self) -> Featurizer | None:
        """What the models see: the text model, with the embedding beside it when there is one."""
        text = self.text_model()
        if text is None or self.embedding is None:
            return text
        if self._semantic is None or self._semantic.text_model is not text:
            self._semantic = SemanticModel(text, self.embedding.embed, self.embedding.name)
        return self._semantic

    # -- chat models ---------------------------------------------------------------------------

    def changed(self, chat_id: int) -> None:
        """The chat's ratings changed: its model is trained again soon (and before it ranks)."""
        self.stale.add(chat_id)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # called outside the event loop: trained when next ranked
            return
        if chat_id in self.pending:
            self.pending[chat_id].cancel()
        self.pending[chat_id] = loop.create_task(self._train_later(chat_id))

    async def _train_later(self, chat_id: int) -> None:
        await asyncio.sleep(RETRAIN_AFTER)
        self.pending.pop(chat_id, None)
        await asyncio.to_thread(self.model, chat_id)

    async def settle(self) -> None:
        """Train now what waits to be trained (at shutdown, and in tests)."""
        chats = list(self.pending)
        for task in self.pending.values():
            task.cancel()
        self.pending.clear()
        for chat_id in chats:
            await asyncio.to_thread(self.model, chat_id)

    def model(self, chat_id: int) -> ChatModel | None:
        """The chat's model, trained when its ratings changed or the text model did."""
        with self.lock:
            if chat_id not in self.models and chat_id not in self.stale:
                with self.database.session() as session:
                    stored = feedback.chat_model(session, chat_id=chat_id)
                    likes, _ = feedback.count_ratings(session, chat_id=chat_id)
                    likes += library.count_library(session, chat_id=chat_id)
                self.models[chat_id] = ChatModel.from_bytes(stored) if stored else None
                if stored is None and likes >= MIN_LIKES:  # rated before any model was kept
                    self.stale.add(chat_id)
            if self.models.get(chat_id) is None and chat_id not in self.stale:
                return None  # a chat without a model: no vocabulary needed (nor fitted)
            text = self.features()
            if text is None:
                return None
            known = self.models.get(chat_id)
            if chat_id in self.stale or (known is not None and not known.fits(text)):
                self.models[chat_id] = self._train(chat_id, text)
                self.stale.discard(chat_id)
            return self.models[chat_id]

    def _train(self, chat_id: int, text: Featurizer) -> ChatModel | None:
        with self.database.session() as session:
            rated = feedback.ratings(session, chat_id=chat_id)
            found = papers.get_papers(session, paper_ids=rated)
            window = papers.latest_papers(session, limit=self.window)
            imported = library.library_papers(session, chat_id=chat_id)
        # an imported library's papers not stored here count as 👍: the reader kept them
        liked = [found[p] for p, value in rated.items() if value > 0 and p in found] + imported
        disliked = [found[p] for p, value in rated.items() if value < 0 and p in found]
        others = [paper for paper_id, paper in window if paper_id not in rated]
        # seeded by the chat: the same sample each time, and no secret rests on it
        background = random.Random(chat_id).sample(others, min(BACKGROUND, len(others)))  # noqa: S311
        model = ChatModel.train(text, liked, disliked, background)
        with self.database.session() as session:
            data = model.to_bytes() if model else None
            feedback.save_chat_model(session, chat_id=chat_id, data=data, now=self.clock())
        log.info(
            "ranking: chat %d trained on %d 👍 (%d of them imported), %d 👎",
            chat_id, len(liked), len(imported), len(disliked),
        )  # fmt: skip
        return model

    # -- ranking -------------------------------------------------------------------------------

    def scores(self, chat_id: int) -> Callable[[dict[int, Paper]], dict[int, float]]:
        """The chat's ranking as plain scores (for ordering /subscribe's and /preview's
        examples)."""

        def scored(candidates: dict[int, Paper]) -> dict[int, float]:
            return {i: score.value for i, score in self.rank(chat_id, candidates).items()}

        return scored

    def rank(self, chat_id: int, candidates: Mapping[int, Paper]) -> dict[int, Score]:
        """The chat's scores for papers (by id); empty when the chat has no model."""
        model = self.model(chat_id)
        features = self.features() if model is not None else None
        if model is None or features is None or not candidates:
            return {}
        ids = list(candidates)
        vectors = features.vectors([candidates[i] for i in ids])
        values = model.scores(vectors)
        return {
            paper_id: Score(float(values[row]), model.reasons(vectors, row))
            for row, paper_id in enumerate(ids)
        }
