from datetime import UTC, datetime

import pytest

from bot.core.schedule import (
    last_due,
    last_quiet_window,
    last_weekly_due,
    local_moment,
    next_due,
    next_weekly_due,
    parse_digest_time,
    parse_quiet_hours,
    parse_weekday,
    quiet_until,
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


BERLIN = "Europe/Berlin"


@pytest.mark.parametrize(
    ("now", "until"),
    [
        (utc(2026, 6, 10, 19, 59), None),  # 21:59 CEST: not yet
        (utc(2026, 6, 10, 20, 0), utc(2026, 6, 11, 5, 0)),  # 22:00: until 07:00 tomorrow
        (utc(2026, 6, 10, 21, 0), utc(2026, 6, 11, 5, 0)),  # 23:00
        (utc(2026, 6, 10, 22, 30), utc(2026, 6, 11, 5, 0)),  # 00:30, past midnight
        (utc(2026, 6, 11, 4, 59), utc(2026, 6, 11, 5, 0)),  # 06:59
        (utc(2026, 6, 11, 5, 0), None),  # 07:00: over
        (utc(2026, 6, 11, 12, 0), None),  # midday
        # 24-25 October: clocks go back in the night, the window is ten hours long
        (utc(2026, 10, 24, 20, 0), utc(2026, 10, 25, 6, 0)),  # 22:00 CEST -> 07:00 CET
        (utc(2026, 10, 25, 5, 30), utc(2026, 10, 25, 6, 0)),  # 06:30 CET
        (utc(2026, 10, 25, 6, 0), None),
        # 28-29 March: clocks go forward, eight hours
        (utc(2026, 3, 28, 20, 59), None),  # 21:59 CET
        (utc(2026, 3, 28, 21, 0), utc(2026, 3, 29, 5, 0)),  # 22:00 CET -> 07:00 CEST
        (utc(2026, 3, 29, 4, 59), utc(2026, 3, 29, 5, 0)),
        (utc(2026, 3, 29, 5, 0), None),
    ],
)
def test_a_window_across_midnight_in_berlin(now: datetime, until: datetime | None) -> None:
    assert quiet_until(now, "22:00", "07:00", BERLIN) == until


@pytest.mark.parametrize(
    ("now", "until"),
    [
        (utc(2026, 6, 10, 10, 59), None),  # 12:59 CEST
        (utc(2026, 6, 10, 11, 0), utc(2026, 6, 10, 13, 0)),  # 13:00 -> 15:00
        (utc(2026, 6, 10, 13, 0), None),
        (utc(2026, 6, 10, 23, 0), None),  # 01:00: a window within a day does not cross
    ],
)
def test_a_window_within_one_day(now: datetime, until: datetime | None) -> None:
    assert quiet_until(now, "13:00", "15:00", BERLIN) == until


def test_an_end_skipped_by_dst_falls_an_hour_later_and_a_repeated_one_is_the_first() -> None:
    # 29 March: 02:30 does not exist in Berlin; the window lasts until 03:30 CEST
    ends = quiet_until(utc(2026, 3, 28, 23, 0), "23:00", "02:30", BERLIN)
    assert ends == utc(2026, 3, 29, 1, 30)
    # 25 October: 02:30 happens twice; the window ends at the first (00:30 UTC), and 02:15 CET,
    # in the hour repeated after it, is not quiet again
    ends = quiet_until(utc(2026, 10, 25, 0, 0), "23:00", "02:30", BERLIN)
    assert ends == utc(2026, 10, 25, 0, 30)
    assert quiet_until(utc(2026, 10, 25, 1, 15), "23:00", "02:30", BERLIN) is None
    # New York's clocks go back on 1 November 2026: 22:00 EDT to 07:00 EST
    window = last_quiet_window(utc(2026, 11, 1, 9, 0), "22:00", "07:00", "America/New_York")
    assert (window.start, window.end) == (utc(2026, 11, 1, 2, 0), utc(2026, 11, 1, 12, 0))


def test_no_quiet_hours_hold_nothing() -> None:
    assert quiet_until(utc(2026, 6, 10, 21, 0), None, None, BERLIN) is None


def test_the_last_window_is_the_one_in_force_or_the_one_just_over() -> None:
    over = last_quiet_window(utc(2026, 6, 11, 12, 0), "22:00", "07:00", BERLIN)
    assert (over.start, over.end) == (utc(2026, 6, 10, 20, 0), utc(2026, 6, 11, 5, 0))
    assert not over.holds(utc(2026, 6, 11, 12, 0)) and over.holds(utc(2026, 6, 11, 4, 0))


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("22:00-07:00", ("22:00", "07:00")), ("22-7", ("22:00", "07:00")),
        ("22:00 to 7:00", ("22:00", "07:00")), ("22 - 7", ("22:00", "07:00")),
        ("10pm-7am", ("22:00", "07:00")), ("10 pm until 7 am", ("22:00", "07:00")),
        ("22.30–6.45", ("22:30", "06:45")), ("13:00-15:00", ("13:00", "15:00")),
        ("midnight-7", ("00:00", "07:00")), ("22h TO 7h", ("22:00", "07:00")),
        ("22:00", None), ("22-22", None), ("22-7-8", None), ("25-7", None), ("22-", None),
        ("", None), ("off", None), ("late-early", None),
    ],
)  # fmt: skip
def test_parse_quiet_hours(text: str, parsed: tuple[str, str] | None) -> None:
    assert parse_quiet_hours(text) == parsed
