from datetime import UTC, datetime

import pytest

from bot.core.schedule import last_due, local_moment, next_due, parse_digest_time


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


@pytest.mark.parametrize(
    ("now", "due"),
    [
        (utc(2026, 10, 24, 6, 0), utc(2026, 10, 24, 6, 0)),  # 08:00 CEST
        (utc(2026, 10, 24, 5, 59), utc(2026, 10, 23, 6, 0)),  # not yet: yesterday's
        (utc(2026, 10, 25, 7, 0), utc(2026, 10, 25, 7, 0)),  # 08:00 CET, after the change
        (utc(2026, 10, 25, 6, 30), utc(2026, 10, 24, 6, 0)),
        (utc(2026, 3, 29, 6, 0), utc(2026, 3, 29, 6, 0)),  # spring: CEST again
    ],
)
def test_last_due_follows_berlin_across_dst(now: datetime, due: datetime) -> None:
    assert last_due(now, "08:00", "Europe/Berlin") == due


def test_a_time_skipped_by_dst_falls_an_hour_later_and_next_due_is_ahead() -> None:
    assert local_moment(utc(2026, 3, 29, 12), "02:30", "Europe/Berlin") == utc(2026, 3, 29, 1, 30)
    now = utc(2026, 10, 24, 6, 0)
    assert next_due(now, "08:00", "Europe/Berlin") == utc(2026, 10, 25, 7, 0)


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("8:30", "08:30"), ("08:30", "08:30"), ("20.15", "20:15"), ("19.30", "19:30"),
        ("7", "07:00"), ("07", "07:00"), ("0", "00:00"), ("23", "23:00"),
        ("7h", "07:00"), ("7h30", "07:30"), ("19H05", "19:05"),
        ("0730", "07:30"), ("730", "07:30"), ("1930", "19:30"), ("0000", "00:00"),
        ("7pm", "19:00"), ("7 PM", "19:00"), ("7p.m.", "19:00"), ("7:30pm", "19:30"),
        ("7am", "07:00"), ("12am", "00:00"), ("12pm", "12:00"), ("12:15 am", "00:15"),
        ("noon", "12:00"), ("Midnight", "00:00"), (" 9:05 ", "09:05"),
        ("24:00", None), ("25:99", None), ("7:60", None), ("2400", None), ("24", None),
        ("13pm", None), ("0am", None), ("7.5", None), ("7:5", None), ("12345", None),
        ("pm", None), ("", None), ("soon", None), ("7 30", None), ("-7", None),
        ("٩:٣٠", None),
    ],
)  # fmt: skip
def test_parse_digest_time(text: str, parsed: str | None) -> None:
    assert parse_digest_time(text) == parsed
