"""When a chat's digest is due: its local hour in its own time zone, daylight saving included,
every day, or once a week on its day."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from bot.core.chat import Chat
from bot.core.states import ChatMode

# ASCII digits only: int() would read '٩' as 9, and a time is typed in ASCII everywhere
_CLOCK = re.compile(r"(?P<hour>\d{1,2})(?:[:.h](?P<minute>\d\d)|h)?", re.A)  # 7, 7:30, 7h30, 7h
_FOUR_DIGITS = re.compile(r"(?P<hour>\d{1,2})(?P<minute>\d\d)", re.A)  # 0730, 730, 1930
_MERIDIEM = re.compile(r"\s*(?P<half>[ap])\.?m\.?$")  # pm, p.m., PM
NAMED_TIMES = {"noon": "12:00", "midnight": "00:00"}
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
WEEK = 7


def parse_digest_time(text: str) -> str | None:
    """A time of day as people write it -> 'HH:MM': '7' and '7h' (07:00), '7pm', '7:30 p.m.',
    '19:30', '19.30', '0730', '7h30', 'noon'; None when it is not one ('25:99', '13pm')."""
    written = text.strip().lower()
    if written in NAMED_TIMES:
        return NAMED_TIMES[written]
    meridiem = _MERIDIEM.search(written)
    if meridiem:
        written = written[: meridiem.start()]
    match = _CLOCK.fullmatch(written) or _FOUR_DIGITS.fullmatch(written)
    if match is None:
        return None
    hour, minute = int(match["hour"]), int(match["minute"] or 0)
    if meridiem:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if meridiem["half"] == "p" else 0)  # 12am is 00, 12pm is 12
    if hour > 23 or minute > 59:
        return None
    return f"{hour:02d}:{minute:02d}"


def local_moment(day: datetime, digest_time: str, timezone: str) -> datetime:
    """The UTC instant of `digest_time` on the local date of `day` in `timezone`. A time that
    does not exist that day (skipped by a DST change) falls an hour later (02:30 -> 03:30), and
    one that happens twice is the first of the two."""
    return _moment_on(day.astimezone(ZoneInfo(timezone)).date(), digest_time, timezone)


def _moment_on(day: date, digest_time: str, timezone: str) -> datetime:
    hour, minute = map(int, digest_time.split(":"))
    local = datetime.combine(day, time(hour, minute), tzinfo=ZoneInfo(timezone))
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


def parse_weekday(text: str) -> int | None:
    """A day of the week as people write it -> 0 (Monday) .. 6 (Sunday): its name or the first
    three letters or more of it ('fri', 'Thurs', 'SUNDAY'); None when it is not one."""
    written = text.strip().lower()
    if len(written) < 3:
        return None
    for number, name in enumerate(WEEKDAYS):
        if name.lower().startswith(written):
            return number
    return None


def last_weekly_due(now: datetime, digest_time: str, timezone: str, weekday: int) -> datetime:
    """The latest weekly digest moment at or before `now`: `digest_time` on the last `weekday`
    (0 Monday) in `timezone`, this week's if it has passed, else the week before's."""
    today = now.astimezone(ZoneInfo(timezone)).date()
    day = today - timedelta(days=(today.weekday() - weekday) % WEEK)
    moment = _moment_on(day, digest_time, timezone)
    if moment <= now:
        return moment
    return _moment_on(day - timedelta(days=WEEK), digest_time, timezone)


def next_weekly_due(now: datetime, digest_time: str, timezone: str, weekday: int) -> datetime:
    today = now.astimezone(ZoneInfo(timezone)).date()
    day = today + timedelta(days=(weekday - today.weekday()) % WEEK)
    moment = _moment_on(day, digest_time, timezone)
    if moment > now:
        return moment
    return _moment_on(day + timedelta(days=WEEK), digest_time, timezone)


def last_digest_due(chat: Chat, now: datetime) -> datetime:
    """The chat's latest digest moment at or before `now`, by its mode: a digest chat's day, a
    weekly chat's week (an instant chat's is the daily one, as /time shows it)."""
    if chat.mode is ChatMode.WEEKLY:
        return last_weekly_due(now, chat.digest_time, chat.timezone, chat.digest_weekday)
    return last_due(now, chat.digest_time, chat.timezone)


def next_digest_due(chat: Chat, now: datetime) -> datetime:
    """The chat's first digest moment after `now`, by its mode."""
    if chat.mode is ChatMode.WEEKLY:
        return next_weekly_due(now, chat.digest_time, chat.timezone, chat.digest_weekday)
    return next_due(now, chat.digest_time, chat.timezone)
