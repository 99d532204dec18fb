"""When a chat's digest is due: its local hour in its own time zone, daylight saving included."""

from __future__ import annotations

import re
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

_TIME = re.compile(r"^([01]?\d|2[0-3])[:.h]([0-5]\d)$")


def parse_digest_time(text: str) -> str | None:
    """'8:30', '08:30', '20.15' -> 'HH:MM'; None when it is not a time of day."""
    match = _TIME.match(text.strip())
    return f"{int(match.group(1)):02d}:{match.group(2)}" if match else None


def find_timezone(text: str) -> str | None:
    """The canonical name of an IANA time zone ('europe/berlin' -> 'Europe/Berlin'), or None."""
    name = text.strip()
    if name.upper() in ("UTC", "GMT", "Z"):
        return "UTC"
    if not name or ".." in name or name.startswith("/"):
        return None
    try:
        ZoneInfo(name)
        return name
    except (ZoneInfoNotFoundError, ValueError):
        lowered = name.lower()
        return next((z for z in sorted(available_timezones()) if z.lower() == lowered), None)


def local_moment(day: datetime, digest_time: str, timezone: str) -> datetime:
    """The UTC instant of `digest_time` on the local date of `day` in `timezone`. A time that
    does not exist that day (skipped by a DST change) falls an hour later (02:30 -> 03:30), and
    one that happens twice is the first of the two."""
    zone = ZoneInfo(timezone)
    hour, minute = map(int, digest_time.split(":"))
    local = datetime.combine(day.astimezone(zone).date(), time(hour, minute), tzinfo=zone)
    return local.astimezone(UTC)


def last_due(now: datetime, digest_time: str, timezone: str) -> datetime:
    """The latest digest moment at or before `now` (today's, or yesterday's if not yet)."""
    today = local_moment(now, digest_time, timezone)
    if today <= now:
        return today
    return local_moment(now - timedelta(days=1), digest_time, timezone)


def next_due(now: datetime, digest_time: str, timezone: str) -> datetime:
    today = local_moment(now, digest_time, timezone)
    if today > now:
        return today
    return local_moment(now + timedelta(days=1), digest_time, timezone)
