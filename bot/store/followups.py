"""Follow-ups: what each tells, once per paper and revision (bot/core/followups.py's
`revision_of`), and who follows a paper (the chats
that 👍'd or saved it and have follow-ups on). Their ledger rows are in bot/store/deliveries.py."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Session, col, select

from bot.core.followups import Followup
from bot.store.database import id_chunks
from bot.store.tables import ChatTable, FeedbackTable, FollowupTable, SavedPaperTable


def record_news(
    session: Session, *, paper_id: int, revision: int, news: Followup, now: datetime
) -> bool:
    """What the paper's follow-up of `revision` tells, kept as first recorded (a listing read
    again tells nothing new); False when it was recorded before."""
    if session.get(FollowupTable, (paper_id, revision)) is not None:
        return False
    session.add(
        FollowupTable(
            paper_id=paper_id,
            revision=revision,
            version=news.version,
            venue=news.venue,
            journal_ref=news.journal_ref,
            doi=news.doi,
            journal=news.journal,
            created_at=now,
        )
    )
    session.flush()
    return True


def recorded(session: Session, *, paper_ids: Iterable[int]) -> dict[int, dict[int, Followup]]:
    """The recorded follow-ups of these papers, by paper and revision (a paper without any left
    out)."""
    found: dict[int, dict[int, Followup]] = defaultdict(dict)
    for chunk in id_chunks(sorted(set(paper_ids))):
        statement = select(FollowupTable).where(col(FollowupTable.paper_id).in_(chunk))
        for row in session.exec(statement):
            news = Followup(row.version, row.venue, row.journal_ref, row.doi, row.journal)
            found[row.paper_id][row.revision] = news
    return dict(found)


def news_of(
    session: Session, *, keys: Iterable[tuple[int, int]]
) -> dict[tuple[int, int], Followup]:
    """The recorded follow-ups of these (paper, revision) pairs."""
    wanted = set(keys)
    found = recorded(session, paper_ids={paper_id for paper_id, _ in wanted})
    return {
        (paper_id, revision): news
        for paper_id, revisions in found.items()
        for revision, news in revisions.items()
        if (paper_id, revision) in wanted
    }


def followers(session: Session, *, paper_ids: Sequence[int]) -> dict[int, list[int]]:
    """For each paper, the active chats with follow-ups on that 👍'd or saved it, by id."""
    found: dict[int, set[int]] = defaultdict(set)
    following = (col(ChatTable.active), col(ChatTable.followups))
    for chunk in id_chunks(paper_ids):
        liked = (
            sa.select(col(FeedbackTable.paper_id), col(FeedbackTable.chat_id))
            .join(ChatTable, col(ChatTable.id) == col(FeedbackTable.chat_id))
            .where(col(FeedbackTable.paper_id).in_(chunk), col(FeedbackTable.value) > 0, *following)
        )
        saved = (
            sa.select(col(SavedPaperTable.paper_id), col(SavedPaperTable.chat_id))
            .join(ChatTable, col(ChatTable.id) == col(SavedPaperTable.chat_id))
            .where(col(SavedPaperTable.paper_id).in_(chunk), *following)
        )
        for paper_id, chat_id in session.execute(sa.union(liked, saved)):
            found[paper_id].add(chat_id)
    # each chat locked as the ledger's check of its rows will lock it (PostgreSQL: FOR KEY
    # SHARE), and a chat forgotten since it was read left out: the rows' check then cannot fail
    # for it, failing the listing that brought the news
    kept = _locked(session, sorted({chat for chats in found.values() for chat in chats}))
    return {paper_id: sorted(chats & kept) for paper_id, chats in found.items() if chats & kept}


def _locked(session: Session, chat_ids: Sequence[int]) -> set[int]:
    kept: set[int] = set()
    for chunk in id_chunks(chat_ids):
        statement = sa.select(col(ChatTable.id)).where(col(ChatTable.id).in_(chunk))
        statement = statement.order_by(col(ChatTable.id)).with_for_update(key_share=True)
        kept.update(session.execute(statement).scalars())
    return kept
