"""A chat's time zone from what a person typed: an IANA name in any case, a city alone
('berlin', 'new york'), or a UTC offset ('UTC+2', 'GMT-5'); else the closest names to offer."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from bot.core.text import strip_accents

# The areas of IANA's geographic zones: where a city alone is looked for (not US/Pacific and
# Canada/Pacific, which name no city, nor Etc/GMT-2, whose sign misleads).
CITY_AREAS = (
    "Africa", "America", "Antarctica", "Arctic", "Asia", "Atlantic", "Australia", "Europe",
    "Indian", "Pacific",
)  # fmt: skip
NOT_ZONES = ("localtime", "Factory")  # in the system's zone folder, but no place's time
_OFFSET = re.compile(
    r"(?:utc|gmt)?\s*(?P<sign>[+\-\u2212])\s*(?P<hours>\d{1,2})(?::?(?P<minutes>\d\d))?", re.A
)
SUGGESTED = 5  # names offered at most
ZONE_NAME_MAX = 64  # characters: the longest IANA name has 32; longer text is not compared


@dataclass(frozen=True)
class ZoneFound:
    zone: str  # the IANA name set
    offset: str | None = None  # 'UTC+2' for Etc/GMT-2, whose POSIX name inverts the sign


@dataclass(frozen=True)
class ZoneUnknown:
    suggestions: tuple[str, ...]  # zone names to offer, closest first
    offset: str | None = None  # 'UTC+5:30' when an offset no zone keeps all year was typed


@cache
def _zones() -> frozenset[str]:
    return frozenset(available_timezones()) - set(NOT_ZONES)


def _folded(name: str) -> str:
    """'America/New_York' and 'america/new york' alike; 'Port-au-Prince' as 'port au prince',
    'São Paulo' as 'sao paulo'."""
    return " ".join(re.sub(r"[_\-]", " ", strip_accents(name).lower()).split())


@cache
def _by_folded_name() -> dict[str, str]:
    return {_folded(zone): zone for zone in _zones()}


@cache
def _by_city() -> dict[str, str]:
    """Each city's zone; a city in two areas (Asia/Nicosia, Europe/Nicosia: one zone and a link
    to it) keeps the longer name, so Buenos Aires is America/Argentina/Buenos_Aires."""
    found: dict[str, str] = {}
    for zone in sorted(_zones(), key=lambda z: (len(z), z)):
        area, _, city = zone.rpartition("/")
        if area.split("/")[0] in CITY_AREAS:
            found[_folded(city)] = zone
    return found


def find_timezone(text: str) -> str | None:
    """The canonical name of an IANA time zone ('europe/berlin' -> 'Europe/Berlin'), or None."""
    name = text.strip()
    if name.upper() in ("UTC", "GMT", "Z"):
        return "UTC"
    if not name or ".." in name or name.startswith("/") or name in NOT_ZONES:
        return None
    try:
        ZoneInfo(name)
        return name
    except (ZoneInfoNotFoundError, ValueError):
        lowered = name.lower()
        return next((z for z in sorted(_zones()) if z.lower() == lowered), None)


def describe_offset(minutes: int) -> str:
    """120 -> 'UTC+2', -570 -> 'UTC-9:30'."""
    sign = "+" if minutes >= 0 else "-"
    hours, rest = divmod(abs(minutes), 60)
    return f"UTC{sign}{hours}" + (f":{rest:02d}" if rest else "")


def _etc_offset(zone: str) -> str | None:
    """'Etc/GMT-2' -> 'UTC+2': POSIX counts hours west of Greenwich, so its signs are the other
    way round."""
    found = re.fullmatch(r"Etc/GMT(?P<sign>[+-])(?P<hours>\d+)", zone)
    if found is None or found["hours"] == "0":
        return None
    hours = int(found["hours"])
    return describe_offset(-60 * hours if found["sign"] == "+" else 60 * hours)


def _offset_minutes(text: str) -> int | None:
    """'UTC+2', 'GMT-5', '+05:30', 'utc +2' -> minutes east of UTC; None when not an offset."""
    found = _OFFSET.fullmatch(text.strip().lower())
    if found is None or int(found["minutes"] or 0) >= 60:
        return None
    minutes = int(found["hours"]) * 60 + int(found["minutes"] or 0)
    return -minutes if found["sign"] != "+" else minutes


def _zones_at(minutes: int, now: datetime) -> tuple[str, ...]:
    """The cities' zones whose clocks stand `minutes` east of UTC at `now`."""
    offset = timedelta(minutes=minutes)
    return tuple(
        sorted(
            zone
            for zone in set(_by_city().values())
            if now.astimezone(ZoneInfo(zone)).utcoffset() == offset
        )
    )


def _closest(text: str) -> tuple[str, ...]:
    """Zone names spelled like `text` (a city or a whole name), closest first."""
    typed = _folded(text)
    names = {**_by_city(), **_by_folded_name()}
    close = difflib.get_close_matches(typed, names, n=SUGGESTED, cutoff=0.75)
    return tuple(dict.fromkeys(names[name] for name in close))


def read_timezone(text: str, now: datetime) -> ZoneFound | ZoneUnknown:
    """What a person typed for their time zone: an IANA name in any case, a city alone, or a
    UTC offset in whole hours (Etc/GMT-2 for UTC+2); else the closest names to offer (for an
    offset no zone keeps all year, such as UTC+5:30, the cities at it `now`)."""
    if len(text) > ZONE_NAME_MAX:
        return ZoneUnknown(())
    zone = find_timezone(text) or _by_folded_name().get(_folded(text))
    zone = zone or _by_city().get(_folded(text))
    if zone is not None:
        return ZoneFound(zone, _etc_offset(zone))
    minutes = _offset_minutes(text)
    if minutes is None:
        return ZoneUnknown(_closest(text))
    if minutes == 0:
        return ZoneFound("UTC")
    if minutes % 60 == 0 and -12 <= minutes // 60 <= 14:
        zone = f"Etc/GMT{'-' if minutes > 0 else '+'}{abs(minutes) // 60}"
        return ZoneFound(zone, describe_offset(minutes))
    return ZoneUnknown(_zones_at(minutes, now)[:SUGGESTED], describe_offset(minutes))
