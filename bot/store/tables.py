"""The database tables (SQLModel). Only bot.store imports this module."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    Text,
    UniqueConstraint,
    bindparam,
    true,
)
from sqlmodel import Field, SQLModel, col

from bot.core.chat import DIGEST_ABSTRACTS, DIGEST_PAGE
from bot.core.states import UNFINISHED, ChatMode, DigestStyle, Status


class PaperTable(SQLModel, table=True):
    __tablename__ = "paper"

    id: int | None = Field(default=None, primary_key=True)
    arxiv_id: str | None = Field(default=None, max_length=40, unique=True)
    version: int | None = None
    doi: str | None = Field(default=None, max_length=300, index=True)
    title_hash: str | None = Field(default=None, max_length=40, index=True)
    abstract_hash: str | None = Field(default=None, max_length=40, index=True)
    title: str = Field(sa_column=Column(Text, nullable=False))
    title_derived: bool = False
    abstract: str = Field(sa_column=Column(Text, nullable=False))
    authors: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    more_authors: int = 0
    categories: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    announce_type: str = Field(default="unknown", max_length=20)
    announced: date | None = Field(default=None, index=True)
    link: str | None = Field(default=None, sa_column=Column(Text))
    journal_ref: str | None = Field(default=None, sa_column=Column(Text))
    comments: str | None = Field(default=None, sa_column=Column(Text))
    source: str = Field(sa_column=Column(Text, nullable=False))
    preprint_doi: str | None = Field(default=None, max_length=300, index=True)
    server: str | None = Field(default=None, max_length=20)
    pmid: str | None = Field(default=None, max_length=20, index=True)
    pmcid: str | None = Field(default=None, max_length=20)
    journal: str | None = Field(default=None, sa_column=Column(Text))
    # PubMed's ISO abbreviation and MedlineTA where they name the journal otherwise (jr: finds them)
    journal_abbreviations: list[str] = Field(
        default_factory=list, sa_column=Column(JSON, nullable=False, server_default="[]")
    )
    mesh: list[str] = Field(
        default_factory=list, sa_column=Column(JSON, nullable=False, server_default="[]")
    )
    # when the journal version of a stored preprint was first found (the row keeps its id, so
    # chats that got the preprint are not sent it again); a "published in" note reads it
    journal_found_at: datetime | None = Field(default=None, index=True)
    first_seen: datetime
    updated_at: datetime | None = None
    # set when the paper (or its newest version) has been matched against the filters; papers
    # with matched_at unset are matched by the next delivery planning, whatever crashed before
    matched_at: datetime | None = Field(default=None, index=True)
    update_pending: bool = False  # a newer version arrived after matching: chats with updates on
    # what filters read of the paper when it was matched (bot.core.identity.filter_view), kept
    # while a record merged since (PubMed's MeSH terms, a journal's name) waits to be matched for
    # the chats it newly matches; None otherwise
    rematch_from: dict[str, object] | None = Field(
        default=None, sa_column=Column(JSON(none_as_null=True), nullable=True)
    )


class ListingFileTable(SQLModel, table=True):
    __tablename__ = "listing_file"

    id: int | None = Field(default=None, primary_key=True)
    content_hash: str = Field(max_length=64, unique=True)
    path: str = Field(sa_column=Column(Text, nullable=False))
    # 64-bit on PostgreSQL: a file over 2 GiB is recorded (refused, unread) with its size
    size: int = Field(
        default=0, sa_column=Column(BigInteger().with_variant(Integer, "sqlite"), nullable=False)
    )
    format: str | None = Field(default=None, max_length=30)
    status: str = Field(max_length=20, index=True)  # ingested | failed
    entries: int = 0
    new: int = 0
    duplicates: int = 0
    error: str | None = Field(default=None, sa_column=Column(Text))
    seen_at: datetime
    announced: date | None = None  # the latest announcement date among its papers, if any


class ChatTable(SQLModel, table=True):
    __tablename__ = "chat"

    id: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    kind: str = Field(default="private", max_length=20)  # private | group | supergroup | channel
    mode: str = Field(default=ChatMode.DIGEST.value, max_length=10)
    digest_time: str = Field(default="08:00", max_length=5)  # HH:MM, local
    timezone: str = Field(default="UTC", max_length=64)
    updates: bool = False
    paused: bool = False
    active: bool = True
    inactive_reason: str | None = Field(default=None, sa_column=Column(Text))
    created_at: datetime
    last_digest_at: datetime
    digest_style: str = Field(default=DigestStyle.COMPACT.value, max_length=10)
    digest_abstracts: int = DIGEST_ABSTRACTS  # compact digests: papers shown with their abstract
    digest_page: int = DIGEST_PAGE  # papers a digest lists before its "more" button
    digest_weekday: int = 0  # weekly mode's day: 0 Monday .. 6 Sunday
    quiet_from: str | None = Field(default=None, max_length=5)  # HH:MM, local; None: no quiet hours
    quiet_to: str | None = Field(default=None, max_length=5)
    quiet_silent: bool = False  # in the window: send without a notification instead of holding
    # the reader's language (bot/i18n.py): the creating update's language_code or /language's;
    # None: English
    language: str | None = Field(default=None, max_length=16)
    # follow-ups of the papers the chat 👍'd or saved: new versions with a venue, a journal
    # reference, a DOI, the journal version (bot/service/followups.py)
    followups: bool = Field(default=True, sa_column_kwargs={"server_default": true()})
    # the process sending to the chat now, and until when its claim holds unless renewed
    busy_by: str | None = Field(default=None, sa_column=Column(Text))
    busy_until: datetime | None = None


class FilterTable(SQLModel, table=True):
    __tablename__ = "filter"
    # an id is never given twice (migration 0010): the planner knows a filter by its id
    __table_args__ = {"sqlite_autoincrement": True}

    id: int | None = Field(default=None, primary_key=True)
    chat_id: int = Field(
        sa_column=Column(
            BigInteger, ForeignKey("chat.id", ondelete="CASCADE"), nullable=False, index=True
        )
    )
    source: str = Field(sa_column=Column(Text, nullable=False))  # what the user wrote
    canonical: str = Field(sa_column=Column(Text, nullable=False))  # how it was understood
    created_at: datetime
    # a "more like this" filter (source like:ID,ID): its seeds' centroid and threshold
    model: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))
    # in a forum supergroup, the topic (message thread) its papers go to; None: General
    topic: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))


class DeliveryTable(SQLModel, table=True):
    """One row per (chat, paper, revision): revision 0 is the paper's first delivery, a newer
    version n (for chats with updates on) is revision n, a follow-up's negative revisions are
    the paper's news without a new version (FollowupTable). Unique, so nothing goes out twice.
    Its chat and paper are checked once a batch rather than by foreign keys, per row
    (deliveries.add_deliveries says why).

    The rows waiting to go out are indexed by chat (and status), and only they: the delivery
    rounds find the chats with rows waiting, and a chat's rows, through it, however long the
    ledger's history, and /metrics counts them by state from it alone. An index of every row's
    status cost planning a fifth of its time (migration 0011)."""

    __tablename__ = "delivery"
    __table_args__ = (UniqueConstraint("chat_id", "paper_id", "revision"),)

    # 64-bit on PostgreSQL: a busy day plans ~6 million rows, a 32-bit id a year's worth (SQLite's
    # INTEGER PRIMARY KEY is 64-bit already, and only INTEGER makes it the table's own rowid)
    id: int | None = Field(
        default=None,
        sa_column=Column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True),
    )
    chat_id: int = Field(sa_column=Column(BigInteger, nullable=False))
    paper_id: int
    revision: int = 0
    filter_ids: list[int] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    status: str = Field(default=Status.PENDING.value, max_length=10)
    message_id: int | None = Field(default=None, sa_column=Column(BigInteger))
    reason: str | None = Field(default=None, sa_column=Column(Text))
    created_at: datetime
    sent_at: datetime | None = None
    # a row sent behind a digest's "more" button: its place in the order the pages list it
    page_position: int | None = None


# The ledger rows that still wait to go out, the condition of the ledger's index of them, and the
# condition a query repeats to find them through it. The statuses are written into the SQL, not
# bound: SQLite uses a partial index only for a query that repeats its condition word for word.
WAITING = col(DeliveryTable.status).in_(
    bindparam("waiting", list(UNFINISHED), expanding=True, literal_execute=True)
)
# Their status is the index's second column so that counting them by state (/metrics at each
# scrape, /healthz's backlog) reads the index alone: by chat only, each row's status was read
# from the table. A busy day's 5.85 million waiting rows: SQLite 4.3-15.1 s -> 0.34-0.69 s;
# PostgreSQL, two settled days beside them, vacuumed: a scan of the table, 1.0-1.6 s -> an
# index-only scan, 0.24-0.37 s. A second index, of their status alone, let SQLite's planner (it
# keeps no statistics) read a few chats' rows through it: the oldest of 10 chats' 18 ms -> 1.1 s.
Index(
    "ix_delivery_waiting",
    DeliveryTable.__table__.c.chat_id,  # type: ignore[attr-defined]
    DeliveryTable.__table__.c.status,  # type: ignore[attr-defined]
    sqlite_where=WAITING,
    postgresql_where=WAITING,
)


class FeedbackTable(SQLModel, table=True):
    """👍 (1) or 👎 (-1): one per chat and paper; pressing again takes it back (deletes it)."""

    __tablename__ = "feedback"
    __table_args__ = (UniqueConstraint("chat_id", "paper_id"),)

    id: int | None = Field(default=None, primary_key=True)
    chat_id: int = Field(
        sa_column=Column(BigInteger, ForeignKey("chat.id", ondelete="CASCADE"), nullable=False)
    )
    paper_id: int = Field(foreign_key="paper.id", ondelete="CASCADE")
    value: int
    created_at: datetime


class MemberVoteTable(SQLModel, table=True):
    """A group member's 👍 (1) or 👎 (-1) on a paper: one per member, chat and paper; pressing
    the same again takes it back (deletes it). The group's own rating (FeedbackTable, which
    its ranking learns from) is the sign of their sum."""

    __tablename__ = "member_vote"
    __table_args__ = (UniqueConstraint("chat_id", "paper_id", "user_id"),)

    id: int | None = Field(default=None, primary_key=True)
    chat_id: int = Field(
        sa_column=Column(BigInteger, ForeignKey("chat.id", ondelete="CASCADE"), nullable=False)
    )
    paper_id: int = Field(foreign_key="paper.id", ondelete="CASCADE")
    user_id: int = Field(sa_column=Column(BigInteger, nullable=False))
    value: int
    created_at: datetime  # when the member last pressed: /top counts the votes of a span


class TextModelTable(SQLModel, table=True):
    """The TF-IDF model fitted on a window of stored papers (one row, name 'tfidf')."""

    __tablename__ = "text_model"

    name: str = Field(primary_key=True, max_length=20)
    data: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    papers: int
    fitted_at: datetime


class ChatModelTable(SQLModel, table=True):
    """A chat's ranking model, trained on its 👍/👎."""

    __tablename__ = "chat_model"

    chat_id: int = Field(
        sa_column=Column(
            BigInteger,
            ForeignKey("chat.id", ondelete="CASCADE"),
            primary_key=True,
            autoincrement=False,
        )
    )
    data: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    trained_at: datetime


class ProcessTable(SQLModel, table=True):
    """A running paperbot process (run or worker), with its last heartbeat."""

    __tablename__ = "process"

    id: str = Field(primary_key=True, max_length=100)
    kind: str = Field(max_length=20)
    started_at: datetime
    seen_at: datetime


class FeedTable(SQLModel, table=True):
    """One polled feed: when it last answered, its last error, the papers it brought, and its
    failures in a row (which put its next poll further off)."""

    __tablename__ = "feed"

    url: str = Field(sa_column=Column(Text, primary_key=True))
    polled_at: datetime  # the last attempt, whatever came of it
    next_poll_at: datetime
    last_success_at: datetime | None = None
    last_error: str | None = Field(default=None, sa_column=Column(Text))
    last_error_at: datetime | None = None
    papers: int = 0  # new papers stored from its contents
    failures: int = 0  # in a row; 0 after a success


class SavedPaperTable(SQLModel, table=True):
    """A paper a chat kept with 🔖: /saved lists them, /export bib|ris|csv writes them."""

    __tablename__ = "saved_paper"
    __table_args__ = (UniqueConstraint("chat_id", "paper_id"),)

    id: int | None = Field(default=None, primary_key=True)
    chat_id: int = Field(
        sa_column=Column(
            BigInteger, ForeignKey("chat.id", ondelete="CASCADE"), nullable=False, index=True
        )
    )
    paper_id: int = Field(foreign_key="paper.id", ondelete="CASCADE")
    created_at: datetime


class LibraryEntryTable(SQLModel, table=True):
    """A paper of an imported library that is not stored here, kept as text (never sent) so
    that the chat's ranking model learns from it as from a 👍; `key`: its folded title's
    digest, so that importing the library again adds nothing."""

    __tablename__ = "library_entry"
    __table_args__ = (UniqueConstraint("chat_id", "key"),)

    id: int | None = Field(default=None, primary_key=True)
    chat_id: int = Field(
        sa_column=Column(BigInteger, ForeignKey("chat.id", ondelete="CASCADE"), nullable=False)
    )
    key: str = Field(max_length=40)
    title: str = Field(sa_column=Column(Text, nullable=False))
    abstract: str = Field(sa_column=Column(Text, nullable=False))
    authors: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    created_at: datetime


class LibraryImportTable(SQLModel, table=True):
    """One /import of a library: the arXiv papers it named (a "more like this" filter's seeds)
    and its most frequent authors, which the buttons under its reply follow."""

    __tablename__ = "library_import"

    id: int | None = Field(default=None, primary_key=True)
    chat_id: int = Field(
        sa_column=Column(
            BigInteger, ForeignKey("chat.id", ondelete="CASCADE"), nullable=False, index=True
        )
    )
    seeds: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    authors: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    created_at: datetime


class FollowupTable(SQLModel, table=True):
    """What a follow-up tells of a paper, once per paper and revision (the ledger's: its new
    version, JOURNAL for its journal version, or the paper's next news below it): the ledger's
    follow-up rows of every chat that 👍'd or saved it read it when they are sent, so each says
    what changed when it was recorded; a paper's rows are what its follow-ups told."""

    __tablename__ = "followup"

    paper_id: int = Field(foreign_key="paper.id", ondelete="CASCADE", primary_key=True)
    revision: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    version: int | None = None
    venue: str | None = Field(default=None, sa_column=Column(Text))
    journal_ref: str | None = Field(default=None, sa_column=Column(Text))
    doi: str | None = Field(default=None, max_length=300)
    journal: str | None = Field(default=None, sa_column=Column(Text))
    created_at: datetime
