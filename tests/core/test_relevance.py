"""Ranking by a chat's 👍/👎 and "more like this", on small papers of three topics."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bot.core import relevance
from bot.core.paper import Paper
from bot.core.relevance import (
    MIN_LIKES,
    ChatModel,
    ModelMismatch,
    SimilarTo,
    TextModel,
    author_token,
    calibrate,
)
from bot.core.semantic import SemanticModel

TOPICS = {
    "robots": "robot grasping manipulation tactile gripper dexterous policy arm locomotion legged",
    "speech": "speech recognition acoustic asr spoken phoneme speaker transcription accent prosody",
    "proteins": "protein folding molecular residue binding enzyme amino docking ligand antibody",
}


def paper(topic: str, number: int) -> Paper:
    """A paper about `topic`: its words in another mix for each number, and common words that
    every paper shares."""
    words = TOPICS[topic].split()
    pick = [words[(number * 3 + offset) % len(words)] for offset in range(6)]
    return Paper(
        title=f"{pick[0].title()} and {pick[1]} with learned {pick[2]} models",
        abstract=(
            f"We study {pick[0]} {pick[3]} for {pick[4]}. Our method improves {pick[5]} and "
            f"{pick[1]} on standard benchmarks, and we release code."
        ),
        source="test",
        arxiv_id=f"2506.{list(TOPICS).index(topic)}{number:04d}",
    )


def window(per_topic: int = 12, start: int = 0) -> list[Paper]:
    return [paper(t, n) for t in TOPICS for n in range(start, start + per_topic)]


@pytest.fixture(scope="module")
def text_model() -> TextModel:
    return TextModel.fit(window())


def test_fewer_than_three_likes_give_no_model(text_model: TextModel) -> None:
    liked = [paper("robots", n) for n in range(MIN_LIKES - 1)]
    assert ChatModel.train(text_model, liked, [], window()) is None
    assert ChatModel.train(text_model, [*liked, paper("robots", 5)], [], window()) is not None


def test_liked_topic_ranks_first(text_model: TextModel) -> None:
    model = ChatModel.train(text_model, [paper("robots", n) for n in range(4)], [], window())
    assert model is not None
    unseen = [paper("robots", 40), paper("speech", 40), paper("proteins", 40)]
    scores = model.scores(text_model.vectors(unseen))
    assert scores[0] > scores[1] and scores[0] > scores[2]


def test_dislikes_push_a_topic_down(text_model: TextModel) -> None:
    liked = [paper("robots", n) for n in range(3)] + [paper("speech", n) for n in range(3)]
    disliked = [paper("speech", n) for n in range(3, 6)]
    unseen = text_model.vectors([paper("robots", 40), paper("speech", 40)])
    before = ChatModel.train(text_model, liked, [], window())
    after = ChatModel.train(text_model, liked, disliked, window())
    assert before is not None and after is not None
    robots, speech = after.scores(unseen)
    assert speech < robots
    assert speech - robots < np.subtract(*before.scores(unseen)[::-1])


def test_reasons_are_words_of_the_paper(text_model: TextModel) -> None:
    model = ChatModel.train(text_model, [paper("robots", n) for n in range(5)], [], window())
    assert model is not None
    unseen = paper("robots", 41)
    reasons = model.reasons(text_model.vectors([unseen]), n=3)
    text = f"{unseen.title} {unseen.abstract}".lower()
    assert len(reasons) == 3
    assert all(word in text for term in reasons for word in term.split())
    assert len({w for term in reasons for w in term.split()}) == sum(
        len(t.split()) for t in reasons
    )  # no word repeated across reasons


def test_round_trips_through_bytes_score_the_same(text_model: TextModel) -> None:
    loaded_text = TextModel.from_bytes(text_model.to_bytes())
    assert loaded_text.fingerprint == text_model.fingerprint
    assert loaded_text.terms == text_model.terms
    assert loaded_text.fitted_on == text_model.fitted_on == 36
    papers = [paper("robots", 50), paper("proteins", 51)]
    model = ChatModel.train(text_model, [paper("robots", n) for n in range(3)], [], window())
    assert model is not None
    similar = SimilarTo.from_seeds(text_model, [paper("speech", 1)], threshold=0.25)
    loaded_model = ChatModel.from_bytes(model.to_bytes())
    loaded_similar = SimilarTo.from_bytes(similar.to_bytes())
    original, reloaded = text_model.vectors(papers), loaded_text.vectors(papers)
    assert (original.matrix != reloaded.matrix).nnz == 0
    assert np.array_equal(model.scores(original), loaded_model.scores(reloaded))
    assert np.array_equal(similar.similarity(original), loaded_similar.similarity(reloaded))
    assert loaded_similar.threshold == 0.25
    with pytest.raises(ValueError, match="not a text model"):
        TextModel.from_bytes(model.to_bytes())
    with pytest.raises(ValueError, match="not a chat model"):
        ChatModel.from_bytes(b"garbage")


def test_background_vectorised_once_trains_the_same_model(text_model: TextModel) -> None:
    liked = [paper("robots", n) for n in range(3)]
    background = window(per_topic=4, start=20)  # none of them rated
    from_papers = ChatModel.train(text_model, liked, [], background)
    from_vectors = ChatModel.train(text_model, liked, [], text_model.vectors(background))
    assert from_papers is not None and from_vectors is not None
    assert np.array_equal(from_papers.coefficients, from_vectors.coefficients)


def test_a_model_of_another_text_model_is_detected(text_model: TextModel) -> None:
    model = ChatModel.train(text_model, [paper("robots", n) for n in range(3)], [], window())
    assert model is not None
    assert TextModel.fit(window()).fingerprint == text_model.fingerprint  # same window, same model
    moved = TextModel.fit(window(per_topic=15))  # the window moved: other idf
    assert model.fits(text_model) and not model.fits(moved)
    with pytest.raises(ModelMismatch):
        model.scores(moved.vectors([paper("robots", 1)]))
    with pytest.raises(ModelMismatch):
        SimilarTo.from_seeds(text_model, [paper("robots", 1)]).similarity(moved.vectors([]))


@pytest.mark.parametrize("share", [0.05, 0.1, 0.25])
def test_calibrated_threshold_passes_the_share_asked(text_model: TextModel, share: float) -> None:
    seeds = [paper("proteins", 2), paper("proteins", 7)]
    days = window(per_topic=20, start=100)
    threshold = calibrate(text_model, seeds, days, share=share)
    passing = SimilarTo.from_seeds(text_model, seeds, threshold).passes(text_model.vectors(days))
    assert math.ceil(share * len(days)) <= passing.sum() <= math.ceil(share * len(days)) + 1
    assert {p.arxiv_id[:6] for p, ok in zip(days, passing, strict=True) if ok} == {"2506.2"}


# -- bot/core/semantic.py: an embedding beside the text model (wordllama's is given at the edge) --


def letter_counts(texts: list[str]) -> np.ndarray:
    """A stand-in static embedding: how often each letter a-z occurs, not normalised."""
    return np.array([[text.lower().count(chr(97 + i)) for i in range(26)] for text in texts])


def test_semantic_vectors_join_the_text_model_and_the_embedding(text_model: TextModel) -> None:
    semantic = SemanticModel(text_model, letter_counts, "letters")
    papers = [paper("robots", 3), paper("speech", 4)]
    vectors = semantic.vectors(papers)
    width = text_model.vectors(papers).matrix.shape[1]
    assert vectors.matrix.shape == (2, width + 26)
    assert np.allclose(np.sqrt(vectors.matrix.multiply(vectors.matrix).sum(axis=1)), 1)
    assert semantic.fingerprint != SemanticModel(text_model, letter_counts, "other").fingerprint
    model = ChatModel.train(semantic, [paper("robots", n) for n in range(3)], [], window())
    assert model is not None and model.fits(semantic) and not model.fits(text_model)
    assert model.reasons(vectors) and set(model.reasons(vectors)) <= set(text_model.terms)
    with pytest.raises(ModelMismatch):
        model.scores(text_model.vectors(papers))


def test_author_tokens_become_terms_when_authors_count(monkeypatch: pytest.MonkeyPatch) -> None:
    papers = [
        Paper(
            title=p.title, abstract=p.abstract, source="test", arxiv_id=p.arxiv_id,
            authors=("Ada Lovelace",) if p.arxiv_id.startswith("2506.0") else ("Alan Turing",),
        )
        for p in window()
        if p.arxiv_id
    ]  # fmt: skip
    monkeypatch.setattr(relevance, "AUTHORS", True)
    with_authors = TextModel.fit(papers)
    assert author_token("Ada Lovelace") == "authoradalovelace"
    assert "authoradalovelace" in with_authors.terms
    monkeypatch.setattr(relevance, "AUTHORS", False)
    assert "authoradalovelace" not in TextModel.fit(papers).terms


def test_title_repeated_weighs_its_words_up(monkeypatch: pytest.MonkeyPatch) -> None:
    probe = Paper(title="Gripper design", abstract="We study speech recognition.", source="test")
    weights = {}
    for repeat in (1, 3):
        monkeypatch.setattr(relevance, "TITLE_REPEAT", repeat)
        model = TextModel.fit([*window(), probe, probe, probe])
        row = model.vectors([probe]).matrix[0].toarray()[0]
        weights[repeat] = row[model.terms.index("gripper")] / row[model.terms.index("speech")]
    assert weights[3] > weights[1] * 1.3


def by(author: str, topic: str, number: int) -> Paper:
    """paper(topic, number) written by `author`."""
    plain = paper(topic, number)
    return Paper(
        title=plain.title, abstract=plain.abstract, source="test", arxiv_id=plain.arxiv_id,
        authors=(author, "Someone Else"),
    )  # fmt: skip


def test_a_liked_author_lifts_their_next_paper(text_model: TextModel) -> None:
    liked = [by("Ada Lovelace", "robots", n) for n in range(3)]
    model = ChatModel.train(text_model, liked, [], window())
    assert model is not None
    assert model.authors == ["Ada Lovelace", "Someone Else"]
    theirs, anyone = by("Ada Lovelace", "proteins", 40), paper("proteins", 40)
    vectors = text_model.vectors([theirs, anyone])
    assert vectors.rows_by_author == {"Ada Lovelace": [0], "Someone Else": [0]}
    lead = model.scores(vectors)[0] - model.scores(vectors)[1]
    assert lead == pytest.approx(2 * relevance.AUTHOR_WEIGHT)  # two of its authors liked
    reloaded = ChatModel.from_bytes(model.to_bytes())
    assert reloaded.authors == model.authors
    assert np.array_equal(reloaded.scores(vectors), model.scores(vectors))
    semantic = SemanticModel(text_model, letter_counts, "letters")
    assert semantic.vectors([theirs]).authors == (("Ada Lovelace", "Someone Else"),)


def test_a_large_collaborations_next_paper_is_lifted_no_more_than_two_authors(
    text_model: TextModel,
) -> None:
    """One 👍 on a paper of a hundred authors: their next paper is lifted as for two of them,
    not by fifty log-odds above anything its text says."""
    members = tuple(f"Member {n}" for n in range(100))

    def of_members(plain: Paper) -> Paper:
        return Paper(
            title=plain.title, abstract=plain.abstract, source="test", arxiv_id=plain.arxiv_id,
            authors=members,
        )  # fmt: skip

    model = ChatModel.train(
        text_model, [of_members(paper("robots", n)) for n in range(3)], [], window()
    )
    assert model is not None
    vectors = text_model.vectors([of_members(paper("proteins", 40)), paper("proteins", 40)])
    lead = model.scores(vectors)[0] - model.scores(vectors)[1]
    assert lead == pytest.approx(relevance.AUTHOR_HITS * relevance.AUTHOR_WEIGHT)


def filed(plain: Paper, *categories: str) -> Paper:
    """`plain` listed in `categories`."""
    return Paper(
        title=plain.title, abstract=plain.abstract, source="test", arxiv_id=plain.arxiv_id,
        categories=categories,
    )  # fmt: skip


def test_a_liked_category_lifts_a_paper_listed_in_it(text_model: TextModel) -> None:
    """Three 👍 in cs.RO (and cs.CV, which half the stored papers share): a paper in cs.RO
    gains CATEGORY_WEIGHT × the log-odds of cs.RO among the 👍 against the stored papers; cs.CV,
    half of the stored papers, lifts less; cs.LG, in no 👍 paper, nothing."""
    others = window(start=20)  # none of them rated
    stored = [filed(p, "cs.CV") if n % 2 else filed(p, "cs.LG") for n, p in enumerate(others)]
    liked = [filed(paper("robots", n), "cs.RO", "cs.CV") for n in range(3)]
    model = ChatModel.train(text_model, liked, [], stored)
    assert model is not None
    # cs.RO: 3 of 3 👍 (3/4 smoothed) against none of 36 stored (1/37); cs.CV: 18 (19/37)
    assert model.categories["cs.RO"] == pytest.approx(math.log((3 / 4) / (1 / 37)))
    assert model.categories["cs.CV"] == pytest.approx(math.log((3 / 4) / (19 / 37)))
    assert "cs.LG" not in model.categories  # no 👍 paper is in it: it says nothing
    probe = paper("proteins", 40)
    vectors = text_model.vectors([filed(probe, "cs.RO"), filed(probe, "cs.LG"), probe])
    assert vectors.categories == (("cs.RO",), ("cs.LG",), ())
    scores = model.scores(vectors)
    assert scores[0] > scores[2]
    assert scores[0] - scores[2] == pytest.approx(
        relevance.CATEGORY_WEIGHT * model.categories["cs.RO"]
    )
    assert scores[1] == pytest.approx(scores[2])
    reloaded = ChatModel.from_bytes(model.to_bytes())
    assert reloaded.categories == model.categories
    assert np.array_equal(reloaded.scores(vectors), scores)
    semantic = SemanticModel(text_model, letter_counts, "letters")
    assert semantic.vectors([filed(probe, "cs.RO")]).categories == (("cs.RO",),)


def test_a_category_as_common_among_the_likes_as_elsewhere_lifts_nothing(
    text_model: TextModel,
) -> None:
    stored = [filed(p, "cs.CV") for p in window()]
    liked = [filed(paper("robots", n), "cs.CV") for n in range(3)]
    model = ChatModel.train(text_model, liked, [], stored)
    assert model is not None
    assert model.categories == {}


def test_reasons_name_a_liked_author_and_category_that_lift_the_paper(
    text_model: TextModel,
) -> None:
    liked = [
        Paper(
            title=p.title, abstract=p.abstract, source="test", arxiv_id=p.arxiv_id,
            authors=("Ada Lovelace",), categories=("cs.RO",),
        )
        for p in (paper("robots", n) for n in range(3))
    ]  # fmt: skip
    model = ChatModel.train(text_model, liked, [], window())
    assert model is not None
    plain = paper("proteins", 40)  # nothing in its words lifts it
    theirs = Paper(
        title=plain.title, abstract=plain.abstract, source="test", authors=("Ada Lovelace",),
        categories=("cs.RO",),
    )  # fmt: skip
    reasons = model.reasons(text_model.vectors([theirs]))
    assert sorted(reasons) == ["Ada Lovelace", "cs.RO"]
    assert model.reasons(text_model.vectors([plain])) == []


def test_a_model_kept_before_category_overlap_no_longer_fits(text_model: TextModel) -> None:
    """A chat model stored before categories were learnt says nothing of them: it does not fit,
    so the ranker retrains it (bot/service/ranking.py) rather than ranking without them."""
    model = ChatModel.train(text_model, [paper("robots", n) for n in range(3)], [], window())
    assert model is not None and model.fits(text_model)
    header, arrays = relevance._unpack(model.to_bytes(), "chat")
    del header["categories"]
    old = ChatModel.from_bytes(relevance._pack("chat", header, **arrays))
    assert old.categories is None
    assert not old.fits(text_model)
    vectors = text_model.vectors([paper("robots", 50)])
    assert np.array_equal(old.scores(vectors), model.scores(vectors))  # it still scores
