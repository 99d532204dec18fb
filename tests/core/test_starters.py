"""Papers to rate to start: spread over the candidates' topics, the same each time."""

from __future__ import annotations

import random

from bot.core.starters import choose_starters

TOPICS = {
    "robots": "robot grasping manipulation tactile gripper dexterous policy arm locomotion legged",
    "speech": "speech recognition acoustic asr spoken phoneme speaker transcription accent prosody",
}


def candidates(counts: dict[str, int], seed: int = 3) -> list[tuple[int, str]]:
    """Papers of each topic (ids: 100s robots, 200s speech), each a shuffle of its topic's
    words with a number of its own."""
    rng = random.Random(seed)
    found = []
    for base, (topic, count) in zip((100, 200), counts.items(), strict=False):
        words = TOPICS[topic].split()
        for n in range(count):
            text = " ".join(rng.sample(words, 6)) + f" study{base + n}"
            found.append((base + n, text))
    return found


def test_a_small_topic_is_asked_about_too() -> None:
    # 18 papers on robots and 4 on speech: the eight most similar would all be robots
    chosen = choose_starters(candidates({"robots": 18, "speech": 4}), k=8)
    assert len(chosen) == 8 == len(set(chosen))
    assert any(100 <= c < 200 for c in chosen)
    assert any(200 <= c < 300 for c in chosen)


def test_two_topics_two_papers_one_each() -> None:
    chosen = choose_starters(candidates({"robots": 10, "speech": 10}), k=2)
    assert sorted(c // 100 for c in chosen) == [1, 2]


def test_the_same_candidates_give_the_same_choice() -> None:
    found = candidates({"robots": 30, "speech": 12})
    assert choose_starters(found) == choose_starters(list(found)) == choose_starters(found)


def test_fewer_candidates_than_asked_are_all_offered() -> None:
    assert choose_starters([(5, "robot arm"), (9, "speech")], k=8) == [5, 9]
    assert choose_starters([], k=8) == []


def test_rated_papers_are_left_out() -> None:
    found = candidates({"robots": 6, "speech": 5})
    chosen = choose_starters(found, rated={100, 101, 200}, k=8)
    assert len(chosen) == 8
    assert not {100, 101, 200} & set(chosen)
    assert choose_starters(found[:3], rated={100}) == [101, 102]


def test_identical_texts_still_give_k_papers() -> None:
    same = [(n, "robot grasping policy") for n in range(12)]
    assert sorted(choose_starters(same, k=8)) == list(range(8))
    assert choose_starters([(n, "the of and") for n in range(10)], k=3) == [0, 1, 2]
