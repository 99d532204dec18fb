from datetime import UTC, datetime

import pytest

from bot.core.schedule import find_timezone, last_due, local_moment, next_due, parse_digest_time


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
    [("8:30", "08:30"), ("08:30", "08:30"), ("20.15", "20:15"), ("24:00", None), ("noon", None)],
)
def test_parse_digest_time(text: str, parsed: str | None) -> None:
    assert parse_digest_time(text) == parsed


@pytest.mark.parametrize(
    ("text", "zone"),
    [("Europe/Berlin", "Europe/Berlin"), ("europe/berlin", "Europe/Berlin"), ("utc", "UTC"),
     ("Mars/Base", None), ("../etc/passwd", None), ("", None)],
)  # fmt: skip
def test_find_timezone(text: str, zone: str | None) -> None:
    assert find_timezone(text) == zone
