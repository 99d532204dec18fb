"""When a chat's digest is due (its local hour in its own time zone, daylight saving included,
every day, or once a week on its day), and when its quiet hours hold alerts back."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from babel.dates import get_day_names

from bot.core.chat import Chat
from bot.core.i18n import ENGLISH, Translator
from bot.core.states import ChatMode

# ASCII digits only: int() would read '٩' as 9, and a time is typed in ASCII everywhere
_CLOCK = re.compile(r"(?P<hour>\d{1,2})(?:[:.h](?P<minute>\d\d)|h)?", re.A)  # 7, 7:30, 7h30, 7h
_FOUR_DIGITS = re.compile(r"(?P<hour>\d{1,2})(?P<minute>\d\d)", re.A)  # 0730, 730, 1930
_MERIDIEM = re.compile(r"\s*(?P<half>[ap])\.?m\.?$")  # pm, p.m., PM
NAMED_TIMES = {"noon": "12:00", "midnight": "00:00"}
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
WEEK = 7
# what stands between the two ends of a window: 22:00-07:00, 22–7, 22:00 to 7:00, 10pm until 7am
_WINDOW_SEPARATOR = re.compile(r"\s*(?:-|–|—|\bto\b|\btill\b|\buntil\b)\s*")


def weekday_name(number: int, *, t: Translator = ENGLISH) -> str:
    """A weekday (0: Monday) as the reader's language names it, standing alone ("Monday",
    "Montag"); WEEKDAYS are the English names /mode reads."""
    return str(get_day_names("wide", context="stand-alone", locale=t.locale)[number])


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
    zone = ZoneInfo(timezone)
    return _on_date(day.astimezone(zone).date(), digest_time, zone)


def _on_date(day: date, clock: str, zone: ZoneInfo) -> datetime:
    """The UTC instant of the local `clock` ('HH:MM') on the local date `day` (DST as in
    `local_moment`)."""
    hour, minute = map(int, clock.split(":"))
    return datetime.combine(day, time(hour, minute), tzinfo=zone).astimezone(UTC)


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
    moment = _on_date(day, digest_time, ZoneInfo(timezone))
    if moment <= now:
        return moment
    return _on_date(day - timedelta(days=WEEK), digest_time, ZoneInfo(timezone))


def next_weekly_due(now: datetime, digest_time: str, timezone: str, weekday: int) -> datetime:
    today = now.astimezone(ZoneInfo(timezone)).date()
    day = today + timedelta(days=(weekday - today.weekday()) % WEEK)
    moment = _on_date(day, digest_time, ZoneInfo(timezone))
    if moment > now:
        return moment
    return _on_date(day + timedelta(days=WEEK), digest_time, ZoneInfo(timezone))


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


def parse_quiet_hours(text: str) -> tuple[str, str] | None:
    """A window of quiet hours as people write it -> ('HH:MM', 'HH:MM'), from and to: '22:00-07:00',
    '22-7', '22:00 to 7:00', '10pm-7am'; None when it is not one (either end not a time, or
    both ends the same: a window of no time, or of the whole day, is not quiet hours)."""
    ends = _WINDOW_SEPARATOR.split(text.strip().lower())
    if len(ends) != 2:
        return None
    start, end = parse_digest_time(ends[0]), parse_digest_time(ends[1])
    if start is None or end is None or start == end:
        return None
    return start, end


@dataclass(frozen=True)
class QuietWindow:
    """One evening's (or day's) quiet hours as UTC instants: from `start`, up to `end`."""

    start: datetime
    end: datetime

    def holds(self, moment: datetime) -> bool:
        return self.start <= moment < self.end


def last_quiet_window(now: datetime, quiet_from: str, quiet_to: str, timezone: str) -> QuietWindow:
    """The quiet window that began last at or before `now` (in force at `now` or already over).
    A window whose start is later in the day than its end crosses midnight (22:00-07:00 ends the
    next morning). Each end is placed as a digest's time is: a time skipped by DST falls an hour
    later, a time that happens twice is the first of the two."""
    zone = ZoneInfo(timezone)
    today = now.astimezone(zone).date()
    crosses = quiet_from > quiet_to  # 'HH:MM' strings order as the times do
    windows = [
        QuietWindow(
            _on_date(day, quiet_from, zone),
            _on_date(day + timedelta(days=1) if crosses else day, quiet_to, zone),
        )
        for day in (today - timedelta(days=1), today)
    ]
    begun = [w for w in windows if w.start <= now]
    return max(begun, key=lambda w: w.start) if begun else windows[0]


def quiet_until(
    moment: datetime, quiet_from: str | None, quiet_to: str | None, timezone: str
) -> datetime | None:
    """When the quiet window that holds `moment` ends; None when `moment` is outside the chat's
    quiet hours (or it has none)."""
    if quiet_from is None or quiet_to is None:
        return None
    window = last_quiet_window(moment, quiet_from, quiet_to, timezone)
    return window.end if window.holds(moment) else None


def held_until(chat: Chat, now: datetime) -> datetime | None:
    """When the chat's quiet hours stop holding its papers back: the end of the window in force
    at `now`; None when nothing is held (outside the window, no quiet hours, or silent ones,
    which send without a notification instead)."""
    if chat.quiet_silent:
        return None
    return quiet_until(now, chat.quiet_from, chat.quiet_to, chat.timezone)


def silenced(chat: Chat, now: datetime) -> bool:
    """Whether a message to the chat at `now` goes without a notification: its quiet hours are
    in force, and set to silent."""
    if not chat.quiet_silent:  # most chats: asked for each message, no window worked out
        return False
    return quiet_until(now, chat.quiet_from, chat.quiet_to, chat.timezone) is not None
