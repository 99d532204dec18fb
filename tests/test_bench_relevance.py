"""bench/relevance.py: its filter prior, and on the first real days (skipped without the shared
data, as bench/day.py's test is) its JSON, which reports the eight-paper start beside the k 👍
conditions, per user sample."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from bench import relevance
from tests.conftest import ROOT

DATA = ROOT.parent / "shared" / "data" / "arxiv-days-2025"


@pytest.mark.parametrize(
    ("matched", "in_title", "added"),
    [(False, False, 0), (True, False, 1), (True, True, 2)],
)
def test_the_filter_prior_adds_a_match_and_a_title_hit(
    matched: bool, in_title: bool, added: int
) -> None:
    scores = relevance.with_filter_prior(np.array([0.5]), np.array([matched]), np.array([in_title]))
    assert scores[0] == pytest.approx(0.5 + added * relevance.FILTER_PRIOR)


@pytest.mark.skipif(not DATA.is_dir(), reason="needs ../shared/data/arxiv-days-2025")
def test_the_json_reports_the_start_conditions_for_every_sample() -> None:
    command = [
        sys.executable, str(ROOT / "bench" / "relevance.py"), "--days", str(DATA),
        "--first", "6", "--users", "6", "--no-semantic", "--json",
    ]  # fmt: skip
    figures = json.loads(subprocess.run(command, capture_output=True, check=True).stdout)
    for method in ("random", "keyword", "tfidf", "keyword+tfidf"):
        conditions = figures[method]["precision_at_10"]
        assert list(conditions) == ["1", "3", "5", "10", "start 8", "start 8 + k=5"]
    assert figures["start 8"]["offered"] == 8
    assert 0 <= figures["start 8"]["liked"] <= 8
    samples = figures["precision_at_10_by_sample"]
    assert {"authors", "category", "pair"} <= set(samples)
    for name in ("authors", "category", "pair"):
        conditions = {"keyword", "tfidf", "keyword+tfidf", "tfidf start 8", "tfidf start 8 + k=5"}
        assert conditions <= set(samples[name])
