"""Follow-ups in the store, on SQLite and PostgreSQL: what each tells is kept once per paper and
revision, as first recorded; a paper's followers are the active chats with follow-ups on that
👍'd or saved it, each once."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlmodel import Session

from bot.core.followups import JOURNAL, Followup
from bot.core.paper import Paper
from bot.store import Database, chats, feedback, followups, library, papers

NOW = datetime(2027, 1, 12, 9, 0, tzinfo=UTC)


def stored_papers(session: Session, count: int) -> list[int]:
    made = [Paper(title=f"Paper {n}", abstract=f"Abstract {n}.", source="t") for n in range(count)]
    return papers.insert_papers(session, papers=made, now=NOW)


def test_news_is_kept_once_per_paper_and_revision_as_first_recorded(
    any_database: Database,
) -> None:
    v2 = Followup(2, "Accepted at ICLR 2027", "J. 1 (2027)", "10.1/x", None)
    published = Followup(None, None, None, "10.1038/n", "Nature")
    with any_database.session() as session:
        [paper, other] = stored_papers(session, 2)
        record = {"session": session, "paper_id": paper, "now": NOW}
        assert followups.record_news(**record, revision=2, news=v2)
        assert not followups.record_news(**record, revision=2, news=published)  # kept as it was
        assert followups.record_news(**record, revision=JOURNAL, news=published)
    with any_database.session() as session:
        found = followups.news_of(session, keys=[(paper, 2), (paper, JOURNAL), (other, 2)])
    assert found == {(paper, 2): v2, (paper, JOURNAL): published}


def test_recorded_gives_each_papers_follow_ups_by_revision(any_database: Database) -> None:
    venue = Followup(2, "Accepted at ICLR 2027", None, None, None)
    reference = Followup(None, None, "J. 1 (2027)", "10.1/x", None)
    with any_database.session() as session:
        [paper, other, quiet] = stored_papers(session, 3)
        record = {"session": session, "now": NOW}
        assert followups.record_news(**record, paper_id=paper, revision=2, news=venue)
        assert followups.record_news(**record, paper_id=paper, revision=JOURNAL - 1, news=reference)
        assert followups.record_news(**record, paper_id=other, revision=JOURNAL - 1, news=venue)
    with any_database.session() as session:
        assert followups.recorded(session, paper_ids=[paper, quiet]) == {
            paper: {2: venue, JOURNAL - 1: reference}
        }


def test_followers_are_the_chats_that_liked_or_saved_with_follow_ups_on(
    any_database: Database,
) -> None:
    with any_database.session() as session:
        [paper, other] = stored_papers(session, 2)
        for chat_id in range(1, 7):
            chats.register_chat(session, chat_id=chat_id, kind="private", now=NOW)
        rate = {"session": session, "paper_id": paper, "now": NOW}
        feedback.rate(**rate, chat_id=1, value=1)  # 👍
        library.toggle_saved(session, chat_id=2, paper_id=paper, now=NOW)  # 🔖
        feedback.rate(**rate, chat_id=3, value=1)  # 👍 and 🔖: once
        library.toggle_saved(session, chat_id=3, paper_id=paper, now=NOW)
        feedback.rate(**rate, chat_id=4, value=-1)  # 👎: not followed
        feedback.rate(**rate, chat_id=5, value=1)
        chats.update_chat(session, chat_id=5, followups=False)  # /followups off
        feedback.rate(**rate, chat_id=6, value=1)
        chats.deactivate_chat(session, chat_id=6, reason="blocked")
        feedback.rate(session, chat_id=1, paper_id=other, value=1, now=NOW)
    with any_database.session() as session:
        assert followups.followers(session, paper_ids=[paper, other]) == {
            paper: [1, 2, 3],
            other: [1],
        }
        chats.forget_chat(session, chat_id=1)
    with any_database.session() as session:
        assert followups.followers(session, paper_ids=[paper, other]) == {paper: [2, 3]}
