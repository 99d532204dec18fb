from datetime import UTC, datetime

import pytest

from bot.core.schedule import (
    last_due,
    last_weekly_due,
    local_moment,
    next_due,
    next_weekly_due,
    parse_digest_time,
    parse_weekday,
)


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


MONDAY, FRIDAY, SUNDAY = 0, 4, 6


@pytest.mark.parametrize(
    ("now", "time", "zone", "weekday", "due"),
    [
        # Berlin, Mondays 08:00: 26 Oct 2026 is the Monday after the change to CET
        (utc(2026, 10, 26, 7, 0), "08:00", "Europe/Berlin", MONDAY, utc(2026, 10, 26, 7, 0)),
        (utc(2026, 10, 26, 6, 59), "08:00", "Europe/Berlin", MONDAY, utc(2026, 10, 19, 6, 0)),
        (utc(2026, 10, 25, 23, 0), "08:00", "Europe/Berlin", MONDAY, utc(2026, 10, 19, 6, 0)),
        (utc(2026, 11, 1, 22, 0), "08:00", "Europe/Berlin", MONDAY, utc(2026, 10, 26, 7, 0)),
        # Auckland's Sunday 08:00 is Saturday in UTC
        (utc(2026, 12, 5, 20, 0), "08:00", "Pacific/Auckland", SUNDAY, utc(2026, 12, 5, 19, 0)),
        (utc(2026, 12, 5, 18, 0), "08:00", "Pacific/Auckland", SUNDAY, utc(2026, 11, 28, 19, 0)),
        # New York's Friday 19:00 is Saturday in UTC
        (utc(2026, 12, 5, 0, 30), "19:00", "America/New_York", FRIDAY, utc(2026, 12, 5, 0, 0)),
        # 02:30 on the Sunday New York skips it falls an hour later, 03:30 EDT
        (utc(2026, 3, 8, 8, 0), "02:30", "America/New_York", SUNDAY, utc(2026, 3, 8, 7, 30)),
        (utc(2026, 3, 8, 7, 0), "02:30", "America/New_York", SUNDAY, utc(2026, 3, 1, 7, 30)),
    ],
)  # fmt: skip
def test_last_weekly_due_is_the_chat_s_day_in_its_zone(
    now: datetime, time: str, zone: str, weekday: int, due: datetime
) -> None:
    assert last_weekly_due(now, time, zone, weekday) == due


@pytest.mark.parametrize(
    ("now", "weekday", "due"),
    [
        (utc(2026, 10, 19, 6, 0), MONDAY, utc(2026, 10, 26, 7, 0)),  # a week on, across DST
        (utc(2026, 10, 19, 5, 59), MONDAY, utc(2026, 10, 19, 6, 0)),  # today's, not yet
        (utc(2026, 10, 21, 12, 0), FRIDAY, utc(2026, 10, 23, 6, 0)),  # Wednesday: this Friday
        (utc(2026, 10, 24, 12, 0), FRIDAY, utc(2026, 10, 30, 7, 0)),  # Saturday: the next
    ],
)
def test_next_weekly_due_is_ahead_in_berlin(now: datetime, weekday: int, due: datetime) -> None:
    assert next_weekly_due(now, "08:00", "Europe/Berlin", weekday) == due
    assert last_weekly_due(due, "08:00", "Europe/Berlin", weekday) == due


@pytest.mark.parametrize(
    ("text", "weekday"),
    [
        ("mon", 0), ("Monday", 0), ("TUE", 1), ("tues", 1), ("wed", 2), ("thurs", 3),
        ("fri", 4), ("Saturday", 5), ("sun", 6), (" sunday ", 6),
        ("m", None), ("mo", None), ("", None), ("mondays", None), ("funday", None), ("7", None),
    ],
)  # fmt: skip
def test_parse_weekday(text: str, weekday: int | None) -> None:
    assert parse_weekday(text) == weekday
