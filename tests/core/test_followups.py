"""Which changes to a liked or saved paper are worth a follow-up."""

from __future__ import annotations

from dataclasses import replace

from bot.core.followups import Followup, followup, venue_of
from bot.core.paper import Paper

V1 = Paper(title="Sparse attention", abstract="", source="t", arxiv_id="2701.00001", version=1)


def test_a_new_version_with_a_journal_reference_and_venue_is_news() -> None:
    v3 = replace(
        V1,
        version=3,
        journal_ref="ICLR 2027",
        doi="10.1/x",
        comments="12 pages; Accepted at ICLR 2027",
    )
    assert followup(V1, v3) == Followup(3, "Accepted at ICLR 2027", "ICLR 2027", "10.1/x", None)


def test_the_same_record_again_or_a_typo_fix_is_no_news() -> None:
    v2 = replace(V1, version=2, comments="v2 fixes a typo", journal_ref="J. 1 (2027) 2")
    assert followup(v2, v2) is None
    assert followup(V1, replace(V1, version=2, comments="v2 fixes a typo")) is None


def test_a_preprint_that_gets_its_journal_is_news_without_a_new_version() -> None:
    published = replace(V1, journal="Nature", doi="10.1038/abc")
    assert followup(V1, published) == Followup(None, None, None, "10.1038/abc", "Nature")


def test_venue_of_reads_acceptance_from_comments() -> None:
    assert venue_of("8 pages. To appear in JHEP; 3 figures") == "To appear in JHEP"
    assert venue_of("35 pages") is None
    assert venue_of(None) is None
