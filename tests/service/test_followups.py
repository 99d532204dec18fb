"""Follow-ups end to end below Telegram: listings ingested into a real database, planned, and
sent by the postman to a recording transport. A 👍'd or saved paper's news goes out once, at
once to an instant chat and under "Follow-ups" in a digest; the same listing again, /followups
off, or a version without news bring nothing."""

from __future__ import annotations

from datetime import date
from html import escape
from pathlib import Path

import pytest

from bot.core.followups import JOURNAL
from bot.core.query import FilterRules
from bot.core.states import Status
from bot.sender import Limits, Sender
from bot.service import ingest
from bot.service.delivery import Postman
from bot.service.planning import Planner
from bot.store import Database, chats, deliveries, feedback, filters, library, papers
from tests.conftest import Clock
from tests.transports import RecordingTransport

DAY = date(2027, 1, 12)
ID = "2701.00042"
TITLE = "Sparse attention for long context"
REF = "J. Mach. Learn. Res. 25 (2026) 1-30"
SOURCES = Path(__file__).parent.parent / "data" / "sources"


def arxiv_rss(*entries: str) -> str:
    """arXiv's RSS listing of a day (as rss.arxiv.org writes it) with these items."""
    return f"""<?xml version='1.0' encoding='UTF-8'?>
<rss xmlns:arxiv="http://arxiv.org/schemas/atom"
 xmlns:dc="http://purl.org/dc/elements/1.1/" version="2.0">
<channel><title>cs.LG updates on arXiv.org</title><link>http://rss.arxiv.org/rss/cs.LG</link>
<description>cs.LG updates</description>
<pubDate>{DAY:%a, %d %b %Y} 00:00:00 -0500</pubDate>{"".join(entries)}</channel></rss>"""


def item(
    version: int, *, doi: str | None = None, journal_ref: str | None = None, paper: str = ID
) -> str:
    announce = "new" if version == 1 else "replace"
    extra = f"<arxiv:DOI>{doi}</arxiv:DOI>" if doi else ""
    extra += (
        f"<arxiv:journal_reference>{escape(journal_ref)}</arxiv:journal_reference>"
        if journal_ref
        else ""
    )
    title, abstract = (
        (TITLE, "We make attention sparse over long contexts.")
        if paper == ID
        else (
            "Another paper on sparse things",
            "Sparse autoencoders read a network's features one by one.",
        )
    )
    return f"""<item><title>{title}</title>
<link>https://arxiv.org/abs/{paper}</link>
<description>arXiv:{paper}v{version} Announce Type: {announce}
Abstract: {abstract}</description>
<guid isPermaLink="false">oai:arXiv.org:{paper}v{version}</guid><category>cs.LG</category>
<arxiv:announce_type>{announce}</arxiv:announce_type>{extra}
<dc:creator>Ada Lovelace</dc:creator></item>"""


class World:
    def __init__(self, database: Database, clock: Clock, tmp_path: Path) -> None:
        self.database, self.clock, self.folder = database, clock, tmp_path
        self.transport = RecordingTransport()
        sender = Sender(self.transport, Limits.off(), sleep=_no_sleep, monotonic=lambda: 0.0)
        self.postman = Postman(database, sender, clock=clock, rules=FilterRules())
        self.planner = Planner(FilterRules())
        self.files = 0

    def chat(self, chat_id: int, **settings: object) -> None:
        with self.database.session() as session:
            chats.register_chat(session, chat_id=chat_id, kind="private", now=self.clock())
            chats.update_chat(session, chat_id=chat_id, **settings)
            filters.add_filter(
                session, chat_id=chat_id, source="sparse", canonical="sparse", now=self.clock()
            )

    def arrive(self, text: str | bytes, name: str | None = None) -> None:
        self.clock.advance(minutes=1)
        self.files += 1
        path = self.folder / (name or f"listing{self.files}.xml")
        path.write_bytes(text.encode() if isinstance(text, str) else text)
        ingest.ingest_paths(self.database, [path], clock=self.clock)
        self.planner.plan(self.database, now=self.clock())

    def paper_id(self) -> int:
        with self.database.session() as session:
            return papers.papers_by_arxiv_id(session, arxiv_ids=[ID])[ID][0]

    def like(self, chat_id: int, paper_id: int | None = None) -> None:
        with self.database.session() as session:
            feedback.rate(
                session,
                chat_id=chat_id,
                paper_id=paper_id or self.paper_id(),
                value=1,
                now=self.clock(),
            )

    def save(self, chat_id: int) -> None:
        with self.database.session() as session:
            library.toggle_saved(
                session, chat_id=chat_id, paper_id=self.paper_id(), now=self.clock()
            )

    def rows(self, chat_id: int) -> list[tuple[int, str]]:
        with self.database.session() as session:
            found = deliveries.all_deliveries(session, chat_id=chat_id)
        return [(row.revision, row.status) for row in found]

    def texts(self, chat_id: int) -> list[str]:
        return self.transport.texts(chat_id)


async def _no_sleep(seconds: float) -> None:
    raise AssertionError(f"slept {seconds} s")


@pytest.fixture
def world(database: Database, clock: Clock, tmp_path: Path) -> World:
    return World(database, clock, tmp_path)


async def test_a_liked_papers_v2_with_a_journal_reference_follows_up_once(world: World) -> None:
    world.chat(1, mode="instant")
    world.arrive(arxiv_rss(item(1)))
    await world.postman.deliver_instant()
    world.like(1)
    world.arrive(arxiv_rss(item(2, journal_ref=REF, doi="10.5555/jmlr.1")))
    await world.postman.deliver_instant()
    [alert, followup] = world.texts(1)
    assert "attention for long context" in alert
    assert followup == (
        f"🔁 v2 · {REF} · "
        'doi:<a href="https://doi.org/10.5555/jmlr.1">10.5555/jmlr.1</a> — '
        f'<a href="https://arxiv.org/abs/{ID}">{TITLE}</a>'
    )
    assert world.rows(1) == [(0, "sent"), (2, "sent")]
    # the same listing again (another file of the same entries, the same file renamed), and a
    # later listing that repeats the version: nothing new to tell
    world.arrive(arxiv_rss(item(2, journal_ref=REF, doi="10.5555/jmlr.1")), "again.xml")
    world.arrive(
        arxiv_rss(item(2, journal_ref=REF, doi="10.5555/jmlr.1"), item(1, paper="2701.00043"))
    )
    await world.postman.deliver_instant()
    assert [text for text in world.texts(1) if text.startswith("🔁")] == [followup]


async def test_a_version_without_news_brings_an_update_and_its_later_news_a_follow_up(
    world: World,
) -> None:
    world.chat(1, mode="instant", updates=True)
    world.arrive(arxiv_rss(item(1)))
    world.like(1)
    world.arrive(arxiv_rss(item(2)))  # a typo fixed: an update, for a chat that follows them
    await world.postman.deliver_instant()
    assert world.rows(1) == [(0, "sent"), (2, "sent")]
    assert not any(text.startswith("🔁") for text in world.texts(1))
    world.arrive(arxiv_rss(item(2, journal_ref=REF)))  # v2 again, now with its reference
    await world.postman.deliver_instant()
    assert world.rows(1) == [(0, "sent"), (2, "sent"), (JOURNAL - 1, "sent")]
    assert world.texts(1)[-1].startswith(f"🔁 {REF} — ")


async def test_each_piece_of_news_of_one_version_is_told_once(world: World) -> None:
    """v2 with its journal reference, then a replacement of the same v2 that adds its DOI: two
    follow-ups, each once, and either listing read again tells nothing."""
    world.chat(1, mode="instant")
    world.arrive(arxiv_rss(item(1)))
    await world.postman.deliver_instant()
    world.like(1)
    referenced = arxiv_rss(item(2, journal_ref=REF))
    published = arxiv_rss(item(2, journal_ref=REF, doi="10.5555/jmlr.1"))
    world.arrive(referenced)
    await world.postman.deliver_instant()
    world.arrive(published)
    await world.postman.deliver_instant()
    notes = [text for text in world.texts(1) if text.startswith("🔁")]
    link = f'<a href="https://arxiv.org/abs/{ID}">{TITLE}</a>'
    assert notes == [
        f"🔁 v2 · {REF} — {link}",
        f'🔁 doi:<a href="https://doi.org/10.5555/jmlr.1">10.5555/jmlr.1</a> — {link}',
    ]
    world.arrive(referenced, "referenced again.xml")
    world.arrive(published, "published again.xml")
    await world.postman.deliver_instant()
    assert [text for text in world.texts(1) if text.startswith("🔁")] == notes
    assert world.rows(1) == [(0, "sent"), (2, "sent"), (JOURNAL - 1, "sent")]


def liked_from_mailing(world: World) -> None:
    """An instant chat 1 gets 2502.13163 from the first mailing and 👍 it."""
    world.chat(1, mode="instant")
    world.arrive((LISTINGS / "email.txt").read_bytes(), "mailing1.txt")
    with world.database.session() as session:
        [(paper_id, _)] = papers.papers_by_arxiv_id(session, arxiv_ids=["2502.13163"]).values()
    world.like(1, paper_id)


async def test_a_mailings_replacement_of_an_accepted_version_tells_its_reference(
    world: World,
) -> None:
    """arXiv's mailing of a replacement names no version (identity.merge's "replaced"): the
    journal reference and DOI it adds to a version whose venue was told are news too."""
    liked_from_mailing(world)
    full = (LISTINGS / "email_journal_ref.txt").read_bytes()
    reference = b"Journal-ref: ACM Comput. Surv. 58 (2026) 1-35\nDOI: 10.1145/3700001\n"
    accepted = full.replace(reference, b"")
    assert accepted != full
    world.arrive(accepted, "mailing2.txt")
    world.arrive(full, "mailing3.txt")
    world.arrive(accepted + b"\n", "mailing4.txt")  # an older record again: nothing
    await world.postman.deliver_instant()
    notes = [text for text in world.texts(1) if text.startswith("🔁")]
    assert [note.split(" — ")[0] for note in notes] == [
        "🔁 Accepted at ICSE 2027",
        "🔁 ACM Comput. Surv. 58 (2026) 1-35 · "
        'doi:<a href="https://doi.org/10.1145/3700001">10.1145/3700001</a>',
    ]


async def test_a_follow_up_and_an_update_of_the_same_version_are_one_message(world: World) -> None:
    world.chat(1, mode="instant", updates=True)
    world.arrive(arxiv_rss(item(1)))
    await world.postman.deliver_instant()
    world.like(1)
    world.arrive(arxiv_rss(item(2, journal_ref=REF)))  # matched again, as an update too
    await world.postman.deliver_instant()
    assert world.rows(1) == [(0, "sent"), (2, "sent")]
    [_, followup] = world.texts(1)
    assert followup.startswith(f"🔁 v2 · {REF} — ")


async def test_follow_ups_come_whether_updates_are_on_or_not_and_stop_when_off(
    world: World,
) -> None:
    world.chat(1, mode="instant")  # updates off (the default)
    world.chat(2, mode="instant", followups=False)
    world.arrive(arxiv_rss(item(1)))
    await world.postman.deliver_instant()
    world.like(1)
    world.like(2)
    world.arrive(arxiv_rss(item(2, journal_ref=REF)))
    await world.postman.deliver_instant()
    assert world.texts(1)[1].startswith("🔁 v2 ")
    assert not any(text.startswith("🔁") for text in world.texts(2))
    assert world.rows(2) == [(0, "sent")]


async def test_a_saved_paper_is_followed_up_too_and_a_disliked_one_not(world: World) -> None:
    world.chat(1, mode="instant")
    world.chat(2, mode="instant")
    world.arrive(arxiv_rss(item(1)))
    await world.postman.deliver_instant()
    world.save(1)
    with world.database.session() as session:
        feedback.rate(session, chat_id=2, paper_id=world.paper_id(), value=-1, now=world.clock())
    world.arrive(arxiv_rss(item(2, doi="10.5555/jmlr.1")))
    await world.postman.deliver_instant()
    assert world.texts(1)[-1].startswith("🔁 v2 · doi:")
    assert not any(text.startswith("🔁") for text in world.texts(2))


async def test_a_digest_chat_gets_its_follow_ups_under_their_heading(world: World) -> None:
    world.chat(1)  # a daily digest (the default)
    world.arrive(arxiv_rss(item(1)))
    await world.postman.send_digest(world_chat(world, 1))
    world.like(1)
    world.arrive(arxiv_rss(item(2, journal_ref=REF), item(1, paper="2701.00043")))
    assert world.texts(1)[1:] == []  # nothing before the digest
    report = await world.postman.send_digest(world_chat(world, 1))
    digest = world.texts(1)[1:]
    assert report.sent == 2
    assert "Another paper on" in digest[0] and "🔁" not in digest[0]
    assert digest[-1].startswith(f"<b>🔁 Follow-ups</b>\n\n1. 🔁 v2 · {REF} — ")
    assert sorted(world.rows(1)) == [(0, "sent"), (0, "sent"), (2, "sent")]


async def test_a_digest_of_follow_ups_alone_is_their_section(world: World) -> None:
    world.chat(1)
    world.arrive(arxiv_rss(item(1)))
    await world.postman.send_digest(world_chat(world, 1))
    world.like(1)
    world.arrive(arxiv_rss(item(3, journal_ref=REF)))
    await world.postman.send_digest(world_chat(world, 1))
    [_, section] = world.texts(1)
    assert section.startswith(f"<b>🔁 Follow-ups</b>\n\n1. 🔁 v3 · {REF} — ")


async def test_a_journal_version_merging_into_a_liked_preprint_is_told_once(
    world: World,
) -> None:
    """bioRxiv's preprint liked; PubMed's record of its journal version merges into it (one
    paper), and the journal's table of contents after it tells nothing more."""
    world.chat(1, mode="instant")
    world.arrive((SOURCES / "biorxiv_preprint.json").read_bytes(), "preprint.json")
    with world.database.session() as session:
        [(paper_id, _)] = papers.latest_papers(session, limit=5)
    world.like(1, paper_id)
    world.arrive((SOURCES / "pubmed_journal.xml").read_bytes(), "pubmed.xml")
    world.arrive((SOURCES / "journal_toc.xml").read_bytes(), "toc.xml")
    await world.postman.deliver_instant()
    [note] = world.texts(1)
    assert note.startswith(
        "🔁 Published in Nature neuroscience 29(10): 1811-1824 (2026) · "
        'doi:<a href="https://doi.org/10.1038/s41593-026-01999-1">'
    )
    assert "Grid cells map odour space" in note
    assert world.rows(1) == [(JOURNAL, "sent")]


def world_chat(world: World, chat_id: int):  # noqa: ANN201
    with world.database.session() as session:
        return chats.get_chat(session, chat_id=chat_id)


LISTINGS = SOURCES.parent / "listings"


async def test_a_mailings_replacement_says_the_liked_paper_was_accepted(world: World) -> None:
    """arXiv's mailing names no version for a replacement: what it says now (its comments,
    journal reference and DOI) is the news, told once."""
    liked_from_mailing(world)
    world.arrive((LISTINGS / "email_journal_ref.txt").read_bytes(), "mailing2.txt")
    world.arrive((LISTINGS / "email_journal_ref.txt").read_bytes() + b"\n", "mailing3.txt")
    await world.postman.deliver_instant()
    [note] = [text for text in world.texts(1) if text.startswith("🔁")]
    assert note.startswith(
        "🔁 Accepted at ICSE 2027 · ACM Comput. Surv. 58 (2026) 1-35 · "
        'doi:<a href="https://doi.org/10.1145/3700001">10.1145/3700001</a> — '
        '<a href="https://arxiv.org/abs/2502.13163">A Survey of Fuzzing'
    )


async def test_a_follow_up_left_by_a_crash_is_sent_by_the_next_process(world: World) -> None:
    """Recorded, then the process dies with the follow-up in flight (`sending`): the next
    process puts it back to pending at start and sends it, once."""
    world.chat(1, mode="instant")
    world.arrive(arxiv_rss(item(1)))
    await world.postman.deliver_instant()
    world.like(1)
    world.arrive(arxiv_rss(item(2, journal_ref=REF)))
    with world.database.session() as session:
        [row] = [r for r in deliveries.all_deliveries(session, chat_id=1) if r.revision == 2]
    with world.database.connection() as connection:
        deliveries.mark_deliveries(
            connection, delivery_ids=[row.id], status=Status.SENDING, now=world.clock()
        )
    restarted = World(world.database, world.clock, world.folder)
    assert restarted.postman.resume() == 1
    await restarted.postman.deliver_instant()
    assert [text[:5] for text in restarted.texts(1)] == ["🔁 v2 "]
    assert world.rows(1) == [(0, "sent"), (2, "sent")]


async def test_a_paused_chat_gets_its_follow_up_when_it_resumes(world: World) -> None:
    world.chat(1, mode="instant")
    world.arrive(arxiv_rss(item(1)))
    await world.postman.deliver_instant()
    world.like(1)
    with world.database.session() as session:
        chats.update_chat(session, chat_id=1, paused=True)
    world.arrive(arxiv_rss(item(2, journal_ref=REF)))
    await world.postman.deliver_instant()
    assert world.rows(1) == [(0, "sent"), (2, "pending")]
    with world.database.session() as session:
        chats.update_chat(session, chat_id=1, paused=False)
    await world.postman.deliver_instant()
    assert world.texts(1)[-1].startswith(f"🔁 v2 · {REF} — ")


async def test_a_reference_written_another_way_brings_no_second_follow_up(world: World) -> None:
    """A mailing re-announces the liked paper with the journal reference it was told with,
    written another way (spacing, case, a stray full stop): the same news, told once."""
    liked_from_mailing(world)
    full = (LISTINGS / "email_journal_ref.txt").read_bytes()
    told = b"Journal-ref: ACM Comput. Surv. 58 (2026) 1-35\nDOI: 10.1145/3700001\n"
    assert told in full

    def mailing(reference: bytes, doi: bytes = b"10.1145/3700001") -> bytes:
        return full.replace(told, b"Journal-ref: " + reference + b"\nDOI: " + doi + b"\n")

    world.arrive(mailing(b"J. Mach. Learn. Res.  25 (2026)"), "mailing2.txt")
    world.arrive(mailing(b"J. Mach. Learn. Res. 25 (2026)"), "mailing3.txt")
    world.arrive(mailing(b"J. mach. learn. res., 25 (2026).", b"10.1145/3700001."), "mailing4.txt")
    await world.postman.deliver_instant()
    notes = [text for text in world.texts(1) if text.startswith("🔁")]
    assert [note.split(" — ")[0] for note in notes] == [
        "🔁 Accepted at ICSE 2027 · J. Mach. Learn. Res. 25 (2026) · "
        'doi:<a href="https://doi.org/10.1145/3700001">10.1145/3700001</a>'
    ]
