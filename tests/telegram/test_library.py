"""A library through the real Application and the fake Bot API: a BibTeX file sent to the bot
fetched with getFile and imported as 👍, papers saved with 🔖 and exported with sendDocument,
and bad files (10 MB, binary, a broken entry) answered clearly, changing nothing."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from bot.core.library import Reference, read_library, to_bibtex
from bot.core.paper import Paper
from bot.store import feedback, papers
from tests.corpus import rss, topic_papers
from tests.telegram.conftest import World

ADA, BOB = 101, 102
CASES = Path(__file__).parent.parent / "data" / "library"
DAY = date(2026, 7, 1)


async def stored_papers(world: World) -> list[Paper]:
    """A listing of 16 papers read: ten on one topic, six on another."""
    papers = topic_papers("kv", 10, first_id=1, day=DAY) + topic_papers(
        "vision", 6, first_id=50, day=DAY
    )
    await world.drop(day1_xml=rss(papers, DAY))
    return papers


async def send_file(
    world: World, chat_id: int, name: str, data: bytes, **more: Any
) -> dict[str, Any]:
    """A user sends a file; returns the bot's answer."""
    before = len(world.server.sent(chat_id))
    world.server.send_file(chat_id, name, data, **more)
    await world.server.wait_for(lambda: len(world.server.sent(chat_id)) > before)
    return world.server.sent(chat_id)[before]


async def press(world: World, chat_id: int, message: dict[str, Any], label: str) -> dict[str, Any]:
    """A button of the message pressed; returns the press's answer (answerCallbackQuery)."""
    data = {
        b["text"]: b["callback_data"]
        for row in message["reply_markup"]["inline_keyboard"]
        for b in row
    }
    answered = len(world.server.calls_to("answerCallbackQuery"))
    world.server.press(chat_id, message["message_id"], data[label])
    await world.server.wait_for(
        lambda: len(world.server.calls_to("answerCallbackQuery")) > answered
    )
    return world.server.calls_to("answerCallbackQuery")[-1].params


def labels(message: dict[str, Any]) -> list[list[str]]:
    return [[b["text"] for b in row] for row in message["reply_markup"]["inline_keyboard"]]


async def test_a_bibtex_export_of_ten_papers_imports_as_ten_likes(world: World) -> None:
    papers = (await stored_papers(world))[:10]
    library = to_bibtex([Reference(p, saved=True, liked=False) for p in papers]).encode()
    answer = await send_file(world, ADA, "My Library.bib", library)
    assert [c.params["file_id"] for c in world.server.calls_to("getFile")] == ["doc1"]
    assert answer["text"] == (
        "Read 10 entries (BibTeX).\n👍 10 papers I know, now rated 👍.\n"
        "Follow what this library is about:"
    )
    assert labels(answer) == [["≈ Follow papers like these 10"]]
    assert "Ratings: 10 👍, 0 👎" in await world.command(ADA, "/status")
    await press(world, ADA, answer, "≈ Follow papers like these 10")
    await world.server.wait_for(lambda: "Filter 1 saved" in world.server.texts(ADA)[-1])
    assert "understood as <code>like" in world.server.texts(ADA)[-1]
    again = await send_file(world, ADA, "My Library.bib", library)  # the same again: no change
    assert again["text"].startswith("Read 10 entries (BibTeX).\n👍 10 papers I know")
    assert "Ratings: 10 👍, 0 👎" in await world.command(ADA, "/status")


async def test_entries_not_stored_train_the_chat_and_its_authors_are_offered(
    world: World,
) -> None:
    """Three entries known here, five not (with abstracts: kept to learn from), one author in
    four of them: an au: filter a button away."""
    papers = await stored_papers(world)
    elsewhere = [
        p.with_changes(arxiv_id=None, title=f"Unseen {p.title}", authors=("Grace Hopper",))
        for p in topic_papers("kv", 5, first_id=900, day=DAY)
    ]
    known = [
        p.with_changes(authors=("Grace Hopper",)) if i == 0 else p for i, p in enumerate(papers[:3])
    ]
    text = to_bibtex([Reference(p, True, False) for p in known + elsewhere])
    answer = await world.server.reply_to(ADA, "/import\n" + text)  # pasted below /import
    assert answer["text"] == (
        "Read 8 entries (BibTeX).\n👍 3 papers I know, now rated 👍.\n"
        "📚 5 papers not in my database, kept to learn your taste from (never sent).\n"
        "Follow what this library is about:"
    )
    assert labels(answer) == [["≈ Follow papers like these 3"], ["Follow au:Grace Hopper"]]
    await press(world, ADA, answer, "Follow au:Grace Hopper")
    await world.server.wait_for(lambda: "Filter 1 saved" in world.server.texts(ADA)[-1])
    assert 'understood as <code>au:"grace hopper"</code>' in world.server.texts(ADA)[-1].lower()
    status = await world.command(ADA, "/status")
    assert "Ratings: 3 👍, 0 👎 (digests ranked for you)\nLibrary: 5 imported papers" in status
    await world.runtime.app.settle_ratings()
    model = world.runtime.app.ranker.model(ADA)  # 3 👍 and 5 imported: trained
    assert model is not None


async def test_saved_papers_export_as_bibtex_that_imports_as_the_same_papers(
    world: World,
) -> None:
    await world.command(ADA, "/subscribe kv cache compression")
    await world.command(ADA, "/mode instant")
    await stored_papers(world)
    await world.runtime.deliver()
    [alert] = [m for m in world.server.sent(ADA) if "'🔖 1'" in str(m.get("reply_markup"))]
    assert labels(alert)[0] == ["📄 1", "👍 1", "👎 1", "🔖 1", "≈ 1"]
    saved = await press(world, ADA, alert, "🔖 1")
    assert saved["text"].startswith("🔖 Saved: ") and saved["show_alert"] == "false"
    await press(world, ADA, alert, "🔖 3")
    await press(world, ADA, alert, "👍 2")
    listed = await world.server.reply_to(ADA, "/saved")
    assert listed["text"].startswith("Saved papers: 2, the last saved first.")
    assert "\nSaved: 2 papers (/saved)" in await world.command(ADA, "/status")
    assert labels(listed) == [["Remove 1", "Remove 2"]]
    before = len(world.server.calls_to("sendDocument"))
    reply = await world.command(ADA, "/export bib")
    assert reply == "Your saved and 👍 papers: 3 papers in paperbot-2026-10-22.bib."
    await world.server.wait_for(lambda: len(world.server.calls_to("sendDocument")) > before)
    [(name, data)] = world.server.documents.values()
    assert name == "paperbot-2026-10-22.bib"
    exported = read_library(data.decode())
    assert exported is not None and exported.bad == ()
    ids = [e.arxiv_id for e in exported.entries]
    assert len(ids) == 3 and all(ids)
    answer = await send_file(world, BOB, name, data)  # another reader takes the file in
    assert answer["text"].startswith("Read 3 entries (BibTeX).\n👍 3 papers I know")
    with world.runtime.database.session() as session:
        rated = feedback.ratings(session, chat_id=BOB)
        found = papers.get_papers(session, paper_ids=rated)
    assert sorted(p.arxiv_id or "" for p in found.values()) == sorted(i or "" for i in ids)
    await press(world, ADA, listed, "Remove 1")  # the list's message, edited

    def now_listed() -> str:
        return str(world.server.messages[(ADA, listed["message_id"])]["text"])

    await world.server.wait_for(lambda: now_listed().startswith("Removed from your saved"))
    assert "Saved papers: 1, the last saved first." in now_listed()


async def test_bad_files_get_a_clear_answer_and_change_nothing(world: World) -> None:
    await stored_papers(world)
    big = await send_file(world, ADA, "huge.bib", b"@misc{a, title={x}}\n", size=10_000_000)
    assert big["text"].startswith(
        "Nothing imported: the file is 10.0 MB; I read libraries up to 8 MB."
    )
    assert world.server.calls_to("getFile") == []  # refused by its size, never fetched
    huge = b"@misc{a, eprint={2607.00001}}\n" + b"%" * 10_000_000
    said = await send_file(world, ADA, "huge.bib", huge, size=0)  # a size Telegram left out
    assert said["text"].startswith("Nothing imported: the file is 10.0 MB")
    assert world.server.downloads == []  # getFile told its size: refused before fetching it
    pdf = b"%PDF-1.7\n\x00\x01\x02\x03binary" * 100
    binary = await send_file(world, ADA, "paper.pdf", pdf)
    assert binary["text"] == (
        "Nothing imported: this is a binary file, not a library. Send a BibTeX (.bib), RIS "
        "(.ris) or CSL-JSON (.json) export, or arXiv ids one per line."
    )
    prose = await send_file(world, ADA, "notes.txt", b"Dear reader,\nthese are my notes.\n")
    assert prose["text"].startswith("Nothing imported: I could not tell what this is.")
    assert "Ratings: none yet" in await world.command(ADA, "/status")
    broken = await send_file(world, ADA, "broken.bib", (CASES / "broken.bib").read_bytes())
    assert broken["text"] == (
        "Read 2 entries (BibTeX).\n"
        "2 entries neither known here nor with an abstract to learn from: not used.\n"
        "1 entry could not be read:\n"
        "• line 7: the entry is not closed (a brace or quote is missing) before the next one"
    )


async def test_in_a_group_only_a_file_captioned_import_is_read_and_by_an_administrator(
    world: World,
) -> None:
    """Files shared in a group are the members' business; one sent with /import as its caption
    is a library, imported when an administrator sends it."""
    papers = (await stored_papers(world))[:3]
    group, admin, member = -500, 11, 12
    world.server.add_group(group, admins={admin})
    library = "\n".join(p.arxiv_id or "" for p in papers).encode()
    world.server.send_file(group, "shared.txt", library, user_id=admin)  # no caption: not for us
    answer = await send_file(world, group, "ids.txt", library, caption="/import", user_id=member)
    assert answer["text"] == "Only this group's administrators can import a library."
    assert world.server.calls_to("getFile") == []  # a member's file is not even fetched
    answer = await send_file(world, group, "ids.txt", library, caption="/import", user_id=admin)
    assert answer["text"].startswith("Read 3 entries (arXiv ids).\n👍 3 papers I know")
    assert len(world.server.sent(group)) == 2  # the uncaptioned file got no answer
