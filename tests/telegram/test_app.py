"""The bot as users meet it in Telegram: the real Application against the fake Bot API server."""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from apscheduler.events import EVENT_JOB_MAX_INSTANCES
from sqlalchemy import text

from bot import jobs
from bot.commands import COMMANDS
from bot.store import chats, filters
from bot.telegram.app import job_callback
from tests.conftest import SEEDS
from tests.telegram.conftest import OPERATOR, World

SEED_NAMES = sorted(p.name for p in SEEDS.iterdir())

ADA, BOB = 101, 102


def chat_row(world: World, chat_id: int) -> chats.Chat | None:
    with world.runtime.database.session() as session:
        return chats.get_chat(session, chat_id=chat_id)


def filters_of(world: World, chat_id: int) -> list[str]:
    with world.runtime.database.session() as session:
        return [f.canonical for f in filters.chat_filters(session, chat_id=chat_id)]


async def test_a_new_users_first_minute(world: World) -> None:
    await world.drop(*SEED_NAMES)
    assert "new papers that match your filters" in await world.command(ADA, "/start")

    reply = await world.command(ADA, '/subscribe "kv cache"')
    assert 'Filter 1 saved, understood as <code>"kv cache"</code>' in reply
    assert "would have matched 2 papers" in reply and "BeNice!" in reply

    await world.command(ADA, "/add au:Hassani")
    listing = await world.server.reply_to(ADA, "/list")
    assert (
        '1. <code>"kv cache"</code>' in listing["text"]
        and "2. <code>au:Hassani</code>" in (listing["text"])  # as typed
    )
    buttons = [b for row in listing["reply_markup"]["inline_keyboard"] for b in row]
    assert [b["text"] for b in buttons] == ["Remove 1", "Remove 2"]

    world.server.press(ADA, listing["message_id"], buttons[0]["callback_data"])
    await world.server.wait_for(lambda: bool(world.server.calls_to("answerCallbackQuery")))
    edited = world.server.messages[(ADA, listing["message_id"])]
    await world.server.wait_for(lambda: 'Removed <code>"kv cache"</code>.' in edited["text"])
    assert (
        "1. <code>au:Hassani</code>" in edited["text"] and "kv cache</code>\n" not in edited["text"]
    )
    assert filters_of(world, ADA) == ["au:hassani"]

    bad = await world.command(ADA, '/subscribe "kv cache')
    assert "unbalanced quote at 1." in bad and "/help" in bad
    assert filters_of(world, ADA) == ["au:hassani"]
    help_text = await world.command(ADA, "/help")
    assert "distill*" in help_text and "/subscribe" in help_text and "/stats" not in help_text


async def test_command_menu_is_registered_at_start(world: World) -> None:
    registered = [c["command"] for c in world.server.commands]
    assert registered == [c.name for c in COMMANDS if not c.operators_only]


async def test_commands_addressed_to_the_bot_by_name(world: World) -> None:
    assert "Filter 1 saved" in await world.command(ADA, "/subscribe@paperbot_test_bot graph")
    assert filters_of(world, ADA) == ["graph"]
    world.server.say(ADA, "/subscribe@some_other_bot mamba")
    assert "Usage" in await world.command(ADA, "/subscribe")  # the one above got no answer
    assert filters_of(world, ADA) == ["graph"]


async def test_unknown_commands_and_plain_text_point_to_help(world: World) -> None:
    assert "/help" in await world.command(ADA, "/frobnicate")
    assert "/help" in await world.command(ADA, "hello there")


async def test_in_groups_only_administrators_change_filters(world: World) -> None:
    group, admin, member = -500, 11, 12
    world.server.add_group(group, admins={admin})
    refused = await world.command(group, "/subscribe mamba", user_id=member)
    assert "administrators" in refused and filters_of(world, group) == []
    await world.command(group, "/subscribe mamba", user_id=admin)
    assert filters_of(world, group) == ["mamba"]
    assert "mamba" in await world.command(group, "/list", user_id=member)  # reading is fine
    listing = world.server.sent(group)[-1]
    shown = str(listing["text"])
    world.server.press(group, listing["message_id"], "remove:1", user_id=member)
    await world.server.wait_for(lambda: bool(world.server.calls_to("answerCallbackQuery")))
    [answer] = world.server.calls_to("answerCallbackQuery")
    assert "administrators" in answer.params["text"] and answer.params["show_alert"] == "true"
    assert world.server.sent(group)[-1]["text"] == shown  # the list stays as it was
    assert filters_of(world, group) == ["mamba"]
    world.server.say(group, "just chatting", user_id=member)  # plain text in a group: silence
    world.server.say(group, "/weather", user_id=member)  # another bot's command: silence
    assert "I do not know /weather" in await world.command(
        group, "/weather@paperbot_test_bot", user_id=member
    )
    assert sum("I do not know" in text for text in world.server.texts(group)) == 1
    assert "Usage" in await world.command(group, "/unsubscribe", user_id=admin)


async def test_blocking_marks_the_chat_inactive_and_start_brings_it_back(world: World) -> None:
    await world.command(ADA, "/subscribe mamba")
    world.server.block(ADA)
    await world.server.wait_for(lambda: not chat_row(world, ADA).active)  # type: ignore[union-attr]
    row = chat_row(world, ADA)
    assert row is not None and row.inactive_reason == "blocked by the user"
    world.server.unblock(ADA)
    await world.command(ADA, "/start")
    row = chat_row(world, ADA)
    assert row is not None and row.active and filters_of(world, ADA) == ["mamba"]


async def test_a_member_may_ask_a_groups_setting_but_not_change_it(world: World) -> None:
    group, admin, member = -510, 11, 12
    world.server.add_group(group, admins={admin})
    told = await world.command(group, "/followups", user_id=member)
    assert told.startswith("Follow-ups of papers you 👍'd or saved: on (/followups off)\nUsage:")
    assert world.server.calls_to("getChatMember") == []  # asking: nobody's rank is looked up
    refused = await world.command(group, "/followups off", user_id=member)
    assert refused == "Only this group's administrators can change its filters and settings."
    row = chat_row(world, group)
    assert row is not None and row.followups
    asked = [c.params["user_id"] for c in world.server.calls_to("getChatMember")]
    assert asked == [str(member)]


async def test_a_group_that_becomes_a_supergroup_keeps_its_filters(world: World) -> None:
    group, supergroup, admin = -600, -1001234, 21
    world.server.add_group(group, admins={admin})
    await world.command(group, "/subscribe mamba", user_id=admin)
    await world.command(group, "/mode instant", user_id=admin)
    world.server.migrate(group, supergroup)
    await world.server.wait_for(lambda: chat_row(world, supergroup) is not None)
    assert chat_row(world, group) is None
    assert filters_of(world, supergroup) == ["mamba"]
    moved = chat_row(world, supergroup)
    assert moved is not None and moved.mode == "instant" and moved.kind == "supergroup"


async def test_stop_forgets_everything_after_a_confirm(world: World) -> None:
    await world.command(ADA, "/subscribe mamba")
    question = await world.server.reply_to(ADA, "/stop")
    buttons = [b["callback_data"] for b in question["reply_markup"]["inline_keyboard"][0]]
    world.server.press(ADA, question["message_id"], buttons[1])  # cancel
    await world.server.wait_for(lambda: "Nothing was deleted" in world.server.sent(ADA)[-1]["text"])
    assert chat_row(world, ADA) is not None
    question = await world.server.reply_to(ADA, "/stop")
    world.server.press(ADA, question["message_id"], "stop:yes")
    await world.server.wait_for(lambda: "Forgotten" in world.server.sent(ADA)[-1]["text"])
    assert chat_row(world, ADA) is None and filters_of(world, ADA) == []


async def test_import_keeps_good_lines_and_reports_bad_ones(world: World) -> None:
    reply = await world.command(
        ADA, '/import\nmamba\n"kv cache\n\n# a comment\nau:Hassani\nfoo:bar'
    )
    assert "Imported 2 filters" in reply and "2 lines not imported" in reply
    assert "line 2: unbalanced quote" in reply and "line 6: unknown field" in reply
    assert filters_of(world, ADA) == ["mamba", "au:hassani"]
    exported = await world.command(ADA, "/export")
    assert "<pre>mamba\nau:Hassani</pre>" in exported


async def test_limits_are_explained_when_hit(make_world: Any) -> None:
    world: World = await make_world(filters={"max_per_chat": 2, "max_length": 20})
    await world.command(ADA, "/subscribe one")
    await world.command(ADA, "/subscribe two")
    assert "the most it may keep is 2" in await world.command(ADA, "/subscribe three")
    assert "too long" in await world.command(ADA, "/preview " + "x " * 15)
    assert filters_of(world, ADA) == ["one", "two"]


async def test_stats_is_for_operators_only(world: World) -> None:
    assert "I do not know /stats" in await world.command(ADA, "/stats")
    assert "Chats:" in await world.command(OPERATOR, "/stats")


async def test_an_internal_error_is_logged_and_the_user_told(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    with world.runtime.database.engine.begin() as connection:
        connection.execute(text("DROP TABLE filter"))
    reply = await world.command(ADA, "/list")
    assert reply == (
        "Sorry, something went wrong on my side. It has been logged; please try again later."
    )
    [logged] = [r for r in caplog.records if r.name == "bot.telegram.app"]
    assert (logged.levelname, logged.getMessage()) == ("ERROR", "error while handling an update")
    assert logged.exc_info is not None and "no such table: filter" in str(logged.exc_info[1])


async def test_fifty_long_filters_list_export_and_remove_within_telegrams_limits(
    world: World,
) -> None:
    words = [f"longword{n}x" for n in range(18)]
    lines = [" | ".join(f"{w}{n}" for w in words) for n in range(50)]  # ~290 characters each
    imported = await world.command(ADA, "/import\n" + "\n".join(lines))
    assert "Imported 50 filters" in imported
    before = len(world.server.sent(ADA))
    world.server.say(ADA, "/export")

    def exported() -> list[str]:
        return [m["text"] for m in world.server.sent(ADA)[before:]]

    await world.server.wait_for(lambda: "\n".join(exported()).count("longword0x") == 50)
    assert len(exported()) > 1 and all(len(text) <= 4096 for text in exported())

    before = len(world.server.sent(ADA))
    world.server.say(ADA, "/list")
    await world.server.wait_for(lambda: len(world.server.sent(ADA)) > before)
    listing = world.server.sent(ADA)[-1]
    assert "50. <code>" in listing["text"] and len(listing["reply_markup"]["inline_keyboard"]) == 50
    world.server.press(ADA, listing["message_id"], "remove:1")
    await world.server.wait_for(lambda: "Removed <code>longword0x0 | " in listing["text"])
    assert "49. <code>" in listing["text"] and len(filters_of(world, ADA)) == 49
    assert not [c for c in world.server.calls if not c.ok and c.method != "getUpdates"]


async def test_health_and_metrics_for_the_operator(make_world: Any) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    world: World = await make_world(metrics={"port": port})
    await world.command(ADA, "/subscribe mamba")
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as client:
        health = await client.get("/healthz")
        metrics = await client.get("/metrics")
        missing = await client.get("/nope")
    assert (health.status_code, health.text) == (200, "ok\n")
    assert 'paperbot_chats{state="active"} 1' in metrics.text
    assert "paperbot_filters 1" in metrics.text and "# TYPE paperbot_papers gauge" in metrics.text
    assert missing.status_code == 404


async def test_a_flood_of_commands_is_told_once_then_not_answered(
    make_world: Callable[..., Any],
) -> None:
    world = await make_world(telegram={"commands_per_minute": 3})
    for _ in range(3):
        assert "filters" in (await world.server.reply_to(ADA, "/list"))["text"].lower()
    told = await world.server.reply_to(ADA, "/list")
    assert told["text"].startswith("That is more than 3 commands in a minute; I answer again in")
    world.server.say(ADA, "/list")  # dropped: no answer
    assert (await world.server.reply_to(BOB, "/list"))["text"]  # another user is answered
    assert world.server.texts(ADA).count(told["text"]) == 1 and len(world.server.texts(ADA)) == 4


async def test_a_second_press_of_the_same_button_changes_nothing_and_says_nothing_wrong(
    world: World,
) -> None:
    """The second press edits the message to what it already says: Telegram refuses such an
    edit ("message is not modified"), which is not the user's problem."""
    await world.command(ADA, "/subscribe mamba")
    question = await world.server.reply_to(ADA, "/stop")
    cancel = question["reply_markup"]["inline_keyboard"][0][1]["callback_data"]
    for presses in (1, 2):
        world.server.press(ADA, question["message_id"], cancel)
        await world.server.wait_for(
            lambda n=presses: len(world.server.calls_to("answerCallbackQuery")) == n  # type: ignore[misc]
        )
    await world.server.wait_for(lambda: len(world.server.calls_to("editMessageText")) == 2)
    await world.command(ADA, "/list")  # updates are handled in order: the presses are done
    assert "Nothing was deleted" in world.server.messages[(ADA, question["message_id"])]["text"]
    assert not any("went wrong" in m["text"] for m in world.server.sent(ADA))
    assert filters_of(world, ADA) == ["mamba"]


async def test_a_failing_job_is_logged_under_its_name(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    await world.command(ADA, "/subscribe mamba")
    with world.runtime.database.engine.begin() as connection:
        connection.execute(text("DROP TABLE filter"))
    failed = asyncio.Event()

    async def told(update: object, context: Any) -> None:  # after the bot's own handler
        failed.set()

    world.app.add_error_handler(told)
    assert world.app.job_queue is not None
    world.place(SEED_NAMES[0])
    world.app.job_queue.run_once(job_callback(jobs.scan_inbox), 0)
    await asyncio.wait_for(failed.wait(), 10)
    [logged] = [r for r in caplog.records if r.name == "bot.telegram.app"]
    assert (logged.levelname, logged.getMessage()) == ("ERROR", "job scan_inbox failed")
    assert logged.exc_info is not None and "no such table: filter" in str(logged.exc_info[1])


async def test_a_job_still_running_is_skipped_quietly_and_counted(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    """APScheduler's tick finds the last run still going (a delivery round takes minutes): no
    warning, a count."""
    caplog.set_level(logging.INFO)
    queue = world.app.job_queue
    assert queue is not None
    release, skips = asyncio.Event(), asyncio.Semaphore(0)

    async def deliver(context: Any) -> None:  # a long round, named as the delivery job
        await release.wait()

    queue.scheduler.add_listener(lambda event: skips.release(), EVENT_JOB_MAX_INSTANCES)
    job = queue.run_repeating(deliver, interval=0.01, first=0)
    for _ in range(3):  # three ticks came while the first run was still going
        await asyncio.wait_for(skips.acquire(), 10)
    release.set()
    job.schedule_removal()
    skipped = world.runtime.metrics.registry.get_sample_value(
        "paperbot_job_runs_skipped_total", {"job": "deliver"}
    )
    assert skipped is not None and skipped >= 3
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
