"""bench/digest.py on a real day (skipped without the shared data, as bench/day.py's test is):
the case issue 28 found, a ranked digest whose "more" pages lost papers, pages add up, and the
first page shows every filter."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT

DATA = ROOT.parent / "shared" / "data" / "arxiv-days-2025"


@pytest.mark.skipif(not DATA.is_dir(), reason="needs ../shared/data/arxiv-days-2025")
def test_a_real_days_pages_add_up_ranked_or_not_and_show_every_filter() -> None:
    day = DATA / "2025-05-27.jsonl"  # the code before stored orders lost 8 papers here, ranked
    command = [sys.executable, str(ROOT / "bench" / "digest.py"), "--day", str(day), "--json"]
    figures = json.loads(subprocess.run(command, capture_output=True, check=True).stdout)
    for page in (30, 10):
        shown = figures[f"page_{page}"]
        assert shown["pages_add_up"] and figures["ranked"][f"page_{page}_pages_add_up"]
        assert shown["filters_on_first_page"] == shown["filters_with_papers"] == 5
    instant = figures["instant"]["busiest_day"]
    assert instant["compact_messages"] <= 8 and instant["compact_characters"] <= 25_000
