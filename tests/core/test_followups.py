"""Which changes to a liked or saved paper are worth a follow-up."""

from __future__ import annotations

import dataclasses
import gettext
from dataclasses import replace
from datetime import UTC, datetime

from bot.core.chat import Delivery
from bot.core.followups import (
    JOURNAL,
    Followup,
    followup,
    followup_buttons,
    followup_messages,
    is_followup,
    render_followup,
    revision_of,
    untold,
    venue_of,
)
from bot.core.i18n import Translator
from bot.core.paper import Paper
from bot.core.render import ENTRIES_A_MESSAGE, MESSAGE_LIMIT, size
from bot.core.states import Status
from tests.pseudo import pseudo_translator, wrapped

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


def test_the_revision_is_the_new_version_else_the_journal_version_else_the_next_news() -> None:
    venue = Followup(3, "Accepted at X", None, None, None)
    published = Followup(None, None, None, "10.1/x", "Nature")
    reference = Followup(None, None, "J. 1 (2027)", None, None)
    assert revision_of(venue, []) == 3
    assert revision_of(published, []) == JOURNAL
    assert revision_of(reference, []) == JOURNAL - 1
    assert revision_of(reference, [3]) == JOURNAL - 1
    assert revision_of(reference, [3, JOURNAL - 1]) == JOURNAL - 2
    assert revision_of(published, [JOURNAL, 2]) == JOURNAL - 1
    assert revision_of(venue, [3, JOURNAL - 1]) == JOURNAL - 2  # a version told: its next news


def test_untold_leaves_out_what_the_papers_follow_ups_told() -> None:
    told = [Followup(2, "Accepted at ICLR 2027", None, None, None)]
    replaced = Followup(None, "Accepted at ICLR 2027", "J. 1 (2027)", "10.1/x", None)
    assert untold(replaced, told) == Followup(None, None, "J. 1 (2027)", "10.1/x", None)
    told.append(Followup(None, None, "J. 1 (2027)", "10.1/x", None))
    assert untold(replaced, told) is None  # read again
    assert untold(Followup(2, None, "J. 1 (2027)", None, None), []) == Followup(
        2, None, "J. 1 (2027)", None, None
    )
    assert untold(Followup(2, None, "J. 2 (2027)", None, None), told) == Followup(
        None, None, "J. 2 (2027)", None, None
    )
    assert untold(Followup(3, None, "J. 1 (2027)", None, None), told) is None  # a version alone


def test_news_written_another_way_is_no_news() -> None:
    """Case, spacing and punctuation are no news; a DOI's case is none by definition."""
    told = replace(
        V1,
        journal_ref="J. Mach. Learn. Res. 25 (2026)",
        doi="10.5555/jmlr.1",
        comments="Accepted at ICLR 2027",
    )
    again = replace(
        told,
        journal_ref="J. mach. learn. res.,  25 (2026).",
        doi="https://doi.org/10.5555/JMLR.1.",
        comments="ACCEPTED AT ICLR 2027!",
    )
    assert followup(told, again) is None
    assert followup(told, replace(again, journal_ref="J. Mach. Learn. Res. 26 (2027)")) == (
        Followup(None, None, "J. Mach. Learn. Res. 26 (2027)", None, None)
    )
    assert followup(told, replace(again, doi="10.5555/jmlr.2")) == (
        Followup(None, None, None, "10.5555/jmlr.2", None)
    )


def test_untold_folds_what_was_told_as_news_is_compared() -> None:
    reference = "J. Mach. Learn. Res. 25 (2026)"
    told = [Followup(2, "Accepted at ICLR 2027", reference, "10.1/x", None)]
    again = Followup(None, "accepted at ICLR 2027.", f" {reference.lower()} ", "10.1/X", None)
    assert untold(again, told) is None
    published = [Followup(None, None, None, None, "Nature Neuroscience")]
    assert untold(Followup(None, None, None, None, "Nature neuroscience"), published) is None
    assert untold(replace(again, doi="10.1/y"), told) == Followup(None, None, None, "10.1/y", None)


def test_a_follow_up_row_is_one_no_filter_matched() -> None:
    now = datetime(2026, 7, 1, tzinfo=UTC)
    row = Delivery(1, 5, 9, 2, [], Status.PENDING, None, None, now)
    assert is_followup(row)
    assert not is_followup(row._replace(filter_ids=[3]))  # an update of a matched paper
    assert not is_followup(row._replace(revision=0))  # the paper itself
    assert is_followup(row._replace(revision=JOURNAL))


PAPER = replace(
    V1,
    title="Sparse attention & friends",
    version=3,
    doi="10.1/x",
    journal_ref="J. Mach. Learn. Res. 25 (2026)",
    comments="Accepted at ICLR 2027",
)


def test_a_follow_up_says_what_changed_in_one_line_linking_the_paper() -> None:
    news = Followup(3, "Accepted at ICLR 2027", "J. Mach. Learn. Res. 25 (2026)", "10.1/x", None)
    assert render_followup(PAPER, news) == (
        "🔁 v3 · Accepted at ICLR 2027 · J. Mach. Learn. Res. 25 (2026) · "
        'doi:<a href="https://doi.org/10.1/x">10.1/x</a> — '
        '<a href="https://arxiv.org/abs/2701.00001">Sparse attention &amp; friends</a>'
    )
    only_doi = Followup(None, None, None, "10.1/x", None)
    assert render_followup(PAPER, only_doi).startswith('🔁 doi:<a href="https://doi.org/10.1/x">')


def test_a_journal_version_says_where_it_was_published_naming_the_journal_once() -> None:
    pubmed = Followup(
        None, None, "Nature neuroscience 29(10): 1811 (2026)", "10.1/n", "Nature neuroscience"
    )
    line = render_followup(PAPER, pubmed)
    assert line.startswith("🔁 Published in Nature neuroscience 29(10): 1811 (2026) · doi:")
    toc = Followup(None, None, None, None, "Nature Neuroscience")
    assert render_followup(PAPER, toc).startswith("🔁 Published in Nature Neuroscience — <a")


def test_without_its_recorded_news_a_follow_up_tells_what_the_paper_has_now() -> None:
    line = render_followup(PAPER, None, revision=3)
    assert line.startswith("🔁 v3 · Accepted at ICLR 2027 · J. Mach. Learn. Res. 25 (2026) · doi:")
    journal = replace(PAPER, journal="Nature", journal_ref=None, comments=None)
    assert render_followup(journal, None, revision=JOURNAL).startswith("🔁 Published in Nature ·")


def test_a_follow_up_has_the_buttons_of_its_paper_alone_or_of_a_digest_entry() -> None:
    alone = [(b.label, b.data) for b in followup_buttons(7, PAPER)]
    assert alone == [
        ("📄 Abstract", "card:7"),
        ("👍", "like:7"),
        ("👎", "dislike:7"),
        ("🔖 Save", "save:7"),
        ("≈ More like this", "similar:7"),
    ]
    unlisted = replace(PAPER, arxiv_id=None)  # no arXiv id to seed "more like this"
    assert [b.data for b in followup_buttons(7, unlisted)][-1] == "save:7"
    numbered = [(b.label, b.data) for b in followup_buttons(7, PAPER, 2)]
    assert numbered == [
        ("📄 2", "card:7"),
        ("👍 2", "like:7:2"),
        ("👎 2", "dislike:7:2"),
        ("🔖 2", "save:7"),
    ]
    news = Followup(None, None, None, "10.1/x", None)
    assert render_followup(PAPER, news, number=2).startswith("2. 🔁 doi:")


def test_a_digest_section_has_its_heading_and_splits_where_telegram_would_cut() -> None:
    lines = [f"🔁 v2 — paper {n} " + "x" * 300 for n in range(30)]
    messages = followup_messages(lines)
    assert len(messages) == 3
    assert all(text.startswith("<b>🔁 Follow-ups</b>\n\n") for text, _ in messages)
    assert [i for _, carried in messages for i in carried] == list(range(30))
    assert all(size(text) <= MESSAGE_LIMIT for text, _ in messages)
    assert followup_messages([]) == []


def test_a_digest_section_of_short_lines_stays_within_telegrams_buttons() -> None:
    """60 short lines would fit 35 a message, 140 buttons: Telegram refuses more than 100."""
    lines = [f"{n}. 🔁 v2 · J. Mach. Learn. Res. 25 (2026) 1-30 — Paper {n}" for n in range(60)]
    messages = followup_messages(lines)
    assert [len(carried) for _, carried in messages] == [19, 19, 19, 3]
    assert 4 * ENTRIES_A_MESSAGE + 1 <= 100  # 4 buttons a line, and room for one more


def test_the_words_go_through_the_chats_translator() -> None:
    german = {
        "v{version}": "Version {version}",
        "Published in {journal}": "Erschienen in {journal}",
        "Follow-ups": "Neuigkeiten",
    }

    class Catalog(gettext.NullTranslations):
        def gettext(self, message: str) -> str:
            return german.get(message, message)

    t = Translator("de", Catalog())
    news = Followup(2, None, None, None, "Nature")
    assert render_followup(PAPER, news, t=t).startswith("🔁 Version 2 · Erschienen in Nature")
    assert followup_messages(["x"], t=t)[0][0].startswith("<b>🔁 Neuigkeiten</b>")


def test_an_untitled_papers_follow_up_says_so_in_the_readers_language() -> None:
    untitled = dataclasses.replace(PAPER, title=" ")
    news = Followup(None, None, None, "10.1/x", None)
    line = render_followup(untitled, news, t=pseudo_translator())
    assert line.endswith(f">{wrapped('(untitled)')}</a>")
