"""Follow-ups through the real Application and the fake Bot API: a reader presses 👍 (or 🔖)
under an alert; the paper's next version with a journal reference brings one follow-up, the
same listing again none; /followups off stops them; a digest chat reads them under its
"Follow-ups" heading."""

from __future__ import annotations

from typing import Any

from bot.store import feedback, papers
from tests.telegram.conftest import World

ADA = 101
REF = "J. Mach. Learn. Res. 25 (2026) 1-30"


def feed(
    version: int, *, journal_ref: str | None = None, doi: str | None = None, speech: bool = False
) -> str:
    """The day's cs.LG feed with "Mamba at scale" at `version` (and, with `speech`, "Mamba for
    speech" at the same version and news)."""
    announce = "new" if version == 1 else "replace"
    extra = (
        f"<arxiv:journal_reference>{journal_ref}</arxiv:journal_reference>" if journal_ref else ""
    )
    extra += f"<arxiv:DOI>{doi}</arxiv:DOI>" if doi else ""
    papers = [("2610.00001", "Mamba at scale", "We study Mamba models at scale.")]
    papers += [("2610.00002", "Mamba for speech", "We make Mamba models listen.")] * speech
    items = "".join(
        f"""<item><title>{title}</title><link>https://arxiv.org/abs/{arxiv_id}</link>
<description>arXiv:{arxiv_id}v{version} Announce Type: {announce}
Abstract: {abstract}</description>
<guid isPermaLink="false">oai:arXiv.org:{arxiv_id}v{version}</guid><category>cs.LG</category>
<pubDate>Fri, 23 Oct 2026 00:00:00 -0400</pubDate>
<arxiv:announce_type>{announce}</arxiv:announce_type>{extra}
<dc:creator>Ada Lovelace</dc:creator></item>"""
        for arxiv_id, title, abstract in papers
    )
    return f"""<?xml version='1.0' encoding='UTF-8'?>
<rss xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns:dc="http://purl.org/dc/elements/1.1/"
 version="2.0"><channel><title>cs.LG updates on arXiv.org</title>
<link>http://rss.arxiv.org/rss/cs.LG</link><description>cs.LG</description>
{items}</channel></rss>"""


def button(message: dict[str, Any], label: str) -> str:
    [data] = [
        b["callback_data"]
        for row in message["reply_markup"]["inline_keyboard"]
        for b in row
        if b["text"].startswith(label)
    ]
    return str(data)


async def press(world: World, message: dict[str, Any], label: str) -> None:
    answered = len(world.server.calls_to("answerCallbackQuery"))
    world.server.press(ADA, message["message_id"], button(message, label))
    await world.server.wait_for(
        lambda: len(world.server.calls_to("answerCallbackQuery")) > answered
    )


def followups(world: World) -> list[str]:
    return [text for text in world.server.texts(ADA) if text.startswith("🔁")]


async def alert_pressed(world: World, label: str, *, mode: str = "instant") -> None:
    """Ada follows "mamba" in `mode`, gets the paper's first version and presses `label`."""
    await world.command(ADA, "/subscribe mamba")
    await world.command(ADA, "/mode instant")
    await world.drop(v1_xml=feed(1))
    await world.runtime.deliver()
    [alert] = [m for m in world.server.sent(ADA) if "like:" in str(m.get("reply_markup"))]
    await press(world, alert, label)
    if mode != "instant":
        await world.command(ADA, f"/mode {mode}")


async def test_a_liked_papers_v2_with_a_journal_reference_brings_one_follow_up(
    world: World,
) -> None:
    await alert_pressed(world, "👍")
    world.clock.advance(days=1)
    await world.drop(v2_xml=feed(2, journal_ref=REF, doi="10.5555/jmlr.2"))
    await world.runtime.deliver()
    assert followups(world) == [
        f"🔁 v2 · {REF} · "
        'doi:<a href="https://doi.org/10.5555/jmlr.2">10.5555/jmlr.2</a> — '
        '<a href="https://arxiv.org/abs/2610.00001">Mamba at scale</a>'
    ]
    world.clock.advance(days=1)
    await world.drop(again_xml=feed(2, journal_ref=REF, doi="10.5555/jmlr.2") + "\n")
    await world.runtime.deliver()
    assert len(followups(world)) == 1  # the same listing again: nothing new


async def test_followups_off_stops_them_and_status_says_so(world: World) -> None:
    await alert_pressed(world, "👍")
    assert "Follow-ups of papers you 👍'd or saved: on" in await world.command(ADA, "/status")
    reply = await world.command(ADA, "/followups off")
    assert reply == "Follow-ups off: papers you 👍'd or saved are not followed up."
    assert "Follow-ups of papers you 👍'd or saved: off" in await world.command(ADA, "/status")
    await world.drop(v2_xml=feed(2, journal_ref=REF))
    await world.runtime.deliver()
    assert followups(world) == []
    asked = await world.command(ADA, "/followups maybe")
    now = "Follow-ups of papers you 👍'd or saved: off (/followups on)"
    assert asked.startswith(f"{now}\nUsage: <code>/followups on|off</code>")


async def test_a_saved_paper_is_followed_up_in_the_digest(world: World) -> None:
    await alert_pressed(world, "🔖", mode="digest")
    await world.drop(v3_xml=feed(3, doi="10.5555/jmlr.3"))
    await world.runtime.deliver()
    assert followups(world) == []  # a digest chat: it waits for the digest
    await world.command(ADA, "/digest")
    [section] = [text for text in world.server.texts(ADA) if "Follow-ups" in text]
    assert section.startswith("<b>🔁 Follow-ups</b>\n\n1. 🔁 v3 · doi:")
    assert section.endswith('<a href="https://arxiv.org/abs/2610.00001">Mamba at scale</a>')


TITLES = ["Mamba at scale", "Mamba for speech"]


def keyboard(message: dict[str, Any]) -> list[list[tuple[str, str]]]:
    """The buttons under a message as the fake Bot API received them: (label, data) rows."""
    rows = message["reply_markup"]["inline_keyboard"]
    return [[(b["text"], b["callback_data"]) for b in row] for row in rows]


def rating(world: World, arxiv_id: str) -> int | None:
    with world.runtime.database.session() as session:
        [(paper_id, _)] = papers.papers_by_arxiv_id(session, arxiv_ids=[arxiv_id]).values()
        return feedback.ratings(session, chat_id=ADA).get(paper_id)


async def test_a_follow_up_carries_its_papers_buttons_and_they_rate_that_paper(
    world: World,
) -> None:
    """Two liked papers published: each follow-up has the buttons of an alert of its paper
    alone, its card one press away; 👎 under one rates that paper, not the other."""
    await world.command(ADA, "/subscribe mamba")
    await world.command(ADA, "/mode instant")
    await world.drop(v1_xml=feed(1, speech=True))
    await world.runtime.deliver()
    [alert] = world.server.sent(ADA)[-1:]
    await press(world, alert, "👍 1")
    await press(world, alert, "👍 2")
    world.clock.advance(days=1)
    await world.drop(v2_xml=feed(2, journal_ref=REF, speech=True))
    await world.runtime.deliver()
    sent = world.server.sent(ADA)[-2:]
    notes = {title: m for title in TITLES for m in sent if f">{title}</a>" in m["text"]}
    assert list(notes) == TITLES
    rows = set()
    for note in notes.values():
        assert note["text"].startswith(f"🔁 v2 · {REF} — ")
        [buttons] = keyboard(note)
        row = buttons[0][1].split(":")[1]
        rows.add(row)
        assert buttons == [
            ("📄 Abstract", f"card:{row}"),
            ("👍", f"like:{row}"),
            ("👎", f"dislike:{row}"),
            ("🔖 Save", f"save:{row}"),
            ("≈ More like this", f"similar:{row}"),
        ]
    assert len(rows) == 2  # each keyed to its own follow-up

    await press(world, notes["Mamba for speech"], "👎")
    assert rating(world, "2610.00002") == -1
    assert rating(world, "2610.00001") == 1
    before = len(world.server.sent(ADA))
    await press(world, notes["Mamba at scale"], "📄")
    await world.server.wait_for(lambda: len(world.server.sent(ADA)) > before)
    [card] = world.server.sent(ADA)[before:]
    assert "Mamba at scale" in card["text"] and "We study Mamba models at scale." in card["text"]


async def test_a_digests_follow_ups_are_numbered_with_their_buttons(world: World) -> None:
    await alert_pressed(world, "🔖", mode="digest")
    await world.drop(v3_xml=feed(3, doi="10.5555/jmlr.3"))
    await world.runtime.deliver()
    await world.command(ADA, "/digest")
    [section] = [m for m in world.server.sent(ADA) if "Follow-ups" in m["text"]]
    [[card, like, dislike, save]] = keyboard(section)
    row = card[1].split(":")[1]
    assert [card, like, dislike, save] == [
        ("📄 1", f"card:{row}"),
        ("👍 1", f"like:{row}:1"),
        ("👎 1", f"dislike:{row}:1"),
        ("🔖 1", f"save:{row}"),
    ]
    assert rating(world, "2610.00001") is None  # saved, not rated
    await press(world, section, "👍 1")
    assert rating(world, "2610.00001") == 1
