from datetime import UTC, datetime

import pytest

from bot.core.zones import ZoneFound, ZoneUnknown, find_timezone, read_timezone

SUMMER = datetime(2026, 7, 1, 12, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "zone"),
    [("Europe/Berlin", "Europe/Berlin"), ("europe/berlin", "Europe/Berlin"), ("utc", "UTC"),
     ("Mars/Base", None), ("../etc/passwd", None), ("", None), ("localtime", None)],
)  # fmt: skip
def test_find_timezone(text: str, zone: str | None) -> None:
    assert find_timezone(text) == zone


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("Europe/Berlin", ZoneFound("Europe/Berlin")),
        ("berlin", ZoneFound("Europe/Berlin")),
        ("new york", ZoneFound("America/New_York")),
        ("NEW_YORK", ZoneFound("America/New_York")),
        ("america/new york", ZoneFound("America/New_York")),
        ("São Paulo", ZoneFound("America/Sao_Paulo")),
        ("port au prince", ZoneFound("America/Port-au-Prince")),
        ("buenos aires", ZoneFound("America/Argentina/Buenos_Aires")),  # not its older link
        ("gmt", ZoneFound("UTC")),
        ("UTC+2", ZoneFound("Etc/GMT-2", "UTC+2")),  # POSIX counts hours west: the sign flips
        ("utc +2", ZoneFound("Etc/GMT-2", "UTC+2")),
        ("GMT-5", ZoneFound("Etc/GMT+5", "UTC-5")),
        ("UTC\u22123", ZoneFound("Etc/GMT+3", "UTC-3")),  # a typographic minus
        ("+14", ZoneFound("Etc/GMT-14", "UTC+14")),
        ("UTC+0", ZoneFound("UTC")),
        ("Etc/GMT-2", ZoneFound("Etc/GMT-2", "UTC+2")),
        ("UTC+5:30", ZoneUnknown(("Asia/Calcutta", "Asia/Colombo", "Asia/Kolkata"), "UTC+5:30")),
        ("UTC+15", ZoneUnknown((), "UTC+15")),
        ("berln", ZoneUnknown(("Europe/Berlin",))),
        ("new yrok", ZoneUnknown(("America/New_York",))),
        ("pacific", ZoneUnknown(("US/Pacific", "Pacific/Yap"))),  # no city: not chosen
        ("Mars/Base", ZoneUnknown(())),
        ("localtime", ZoneUnknown(())),  # the server's own zone is no place's
        ("x" * 65, ZoneUnknown(())),
    ],
)
def test_read_timezone(text: str, read: ZoneFound | ZoneUnknown) -> None:
    assert read_timezone(text, SUMMER) == read
