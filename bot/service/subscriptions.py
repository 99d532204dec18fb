"""A chat's filters: subscribe, preview, list, unsubscribe, export, import. Every filter is read
by the one parser of the settings (FilterRules), so what is accepted here is what is matched."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from importlib import resources

from bot.core.categories import Taxonomy, UnknownCategory, read_taxonomy, unknown_categories
from bot.core.chat import Filter
from bot.core.problems import Problem
from bot.core.query import FilterKind, FilterRules, InvalidQuery, Node, canonical
from bot.service.preview import RecentMatches, RecentPapers, Scores, recent_matches
from bot.store import Database, filters


@dataclass(frozen=True)
class BadFilter:
    source: str
    problem: Problem  # for a person: what is wrong, put into their language where shown
    position: int | None  # where, counted from 0, when it is one place

    @property
    def message(self) -> str:
        """What is wrong, in English."""
        return self.problem.message


@dataclass(frozen=True)
class Subscribed:
    number: int  # as /list shows it
    canonical: str
    recent: RecentMatches
    filter_id: int
    unknown_categories: tuple[UnknownCategory, ...] = ()  # saved all the same: a warning
    kind: FilterKind = FilterKind.KEYWORDS  # which names it (render.filter_name)


@dataclass(frozen=True)
class AlreadyFollowed:
    number: int
    canonical: str
    kind: FilterKind = FilterKind.KEYWORDS


@dataclass(frozen=True)
class AtLimit:
    count: int
    limit: int


@dataclass(frozen=True)
class Previewed:
    canonical: str
    recent: RecentMatches
    unknown_categories: tuple[UnknownCategory, ...] = ()


@cache
def arxiv_taxonomy() -> Taxonomy:
    """arXiv's categories, read once from the package's data file."""
    data = resources.files("bot.core").joinpath("data", "arxiv_categories.txt")
    return read_taxonomy(data.read_text(encoding="utf-8"))


def read_filter(rules: FilterRules, source: str) -> Node | BadFilter:
    try:
        return rules.parse(source)
    except InvalidQuery as error:
        return BadFilter(source, error.problem, error.position)


def subscribe(
    database: Database,
    *,
    chat_id: int,
    source: str,
    rules: FilterRules,
    now: datetime,
    recent: RecentPapers,
    scores: Scores | None = None,
    topic: int | None = None,
) -> Subscribed | AlreadyFollowed | AtLimit | BadFilter:
    """A filter for the chat, and what it would have matched among the `recent` papers;
    `scores`: the chat's ranking, which orders the examples; `topic`: the forum topic its
    papers go to (None: General)."""
    query = read_filter(rules, source)
    if isinstance(query, BadFilter):
        return query
    understood = canonical(query)
    with database.session() as session:
        existing = filters.chat_filters(session, chat_id=chat_id)
        for number, stored in enumerate(existing, 1):
            if stored.canonical == understood:
                return AlreadyFollowed(number, understood)
        if len(existing) >= rules.max_per_chat:
            return AtLimit(len(existing), rules.max_per_chat)
        added = filters.add_filter(
            session, chat_id=chat_id, source=source, canonical=understood, now=now, topic=topic
        )
    return Subscribed(
        len(existing) + 1,
        understood,
        recent_matches(recent, query, scores),
        filter_id=added.id,
        unknown_categories=unknown_categories(query, arxiv_taxonomy()),
    )


def preview_filter(
    recent: RecentPapers, *, source: str, rules: FilterRules, scores: Scores | None = None
) -> Previewed | BadFilter:
    query = read_filter(rules, source)
    if isinstance(query, BadFilter):
        return query
    return Previewed(
        canonical(query),
        recent_matches(recent, query, scores),
        unknown_categories(query, arxiv_taxonomy()),
    )


def list_filters(database: Database, *, chat_id: int) -> list[Filter]:
    """The chat's filters in /list order (the numbers commands take)."""
    with database.session() as session:
        return filters.chat_filters(session, chat_id=chat_id)


@dataclass(frozen=True)
class Unsubscribed:
    removed: list[Filter]


@dataclass(frozen=True)
class NoSuchFilter:
    number: int
    count: int  # how many the chat has


def unsubscribe(
    database: Database, *, chat_id: int, numbers: Sequence[int] | None
) -> Unsubscribed | NoSuchFilter:
    """Filters by their /list numbers; None: all of them."""
    with database.session() as session:
        listed = filters.chat_filters(session, chat_id=chat_id)
        chosen = sorted(set(numbers)) if numbers is not None else range(1, len(listed) + 1)
        for number in chosen:
            if not 1 <= number <= len(listed):
                return NoSuchFilter(number, len(listed))
        removed = [listed[n - 1] for n in chosen]
        filters.remove_filters(session, chat_id=chat_id, filter_ids=[f.id for f in removed])
    return Unsubscribed(removed)


@dataclass(frozen=True)
class Moved:
    """/topic: the filter (as /list numbers it) posts in `topic` from now on (None: General)."""

    number: int
    filter: Filter
    topic: int | None


def move_filter(
    database: Database, *, chat_id: int, number: int, topic: int | None
) -> Moved | NoSuchFilter:
    """The filter numbered `number` to `topic`; what waits for it goes there too (a paper goes
    to its first filter's topic when it is sent)."""
    with database.session() as session:
        listed = filters.chat_filters(session, chat_id=chat_id)
        if not 1 <= number <= len(listed):
            return NoSuchFilter(number, len(listed))
        chosen = listed[number - 1]
        filters.set_filter_topic(session, chat_id=chat_id, filter_id=chosen.id, topic=topic)
    return Moved(number, chosen, topic)


def remove_filter(database: Database, *, chat_id: int, filter_id: int) -> Filter | None:
    """A remove button: the filter by its id (numbers move as filters go); the filter removed,
    None when it was gone already."""
    with database.session() as session:
        found = filters.get_filters(session, filter_ids=[filter_id]).get(filter_id)
        if found is None or found.chat_id != chat_id:
            return None
        filters.remove_filters(session, chat_id=chat_id, filter_ids=[filter_id])
        return found


@dataclass(frozen=True)
class BadLine:
    number: int  # the line, counted from 1
    source: str
    problem: Problem

    @property
    def message(self) -> str:
        """What is wrong with the line, in English."""
        return self.problem.message


@dataclass(frozen=True)
class OverLimit:
    number: int
    limit: int


@dataclass(frozen=True)
class Imported:
    added: int
    problems: list[BadLine | OverLimit] = field(default_factory=list)
    already: int = 0  # lines the chat follows already (as written, or understood the same)


def import_filters(
    database: Database, *, chat_id: int, lines: Sequence[str], rules: FilterRules, now: datetime
) -> Imported:
    """One filter a line (empty lines and #comments skipped); bad lines are reported and the
    good ones kept; a filter the chat follows already is not added twice."""
    added, already, problems = 0, 0, list[BadLine | OverLimit]()
    with database.session() as session:
        known = {f.canonical for f in filters.chat_filters(session, chat_id=chat_id)}
        for number, line in enumerate(lines, 1):
            if not line or line.startswith("#"):
                continue
            query = read_filter(rules, line)
            if isinstance(query, BadFilter):
                problems.append(BadLine(number, line, query.problem))
                continue
            understood = canonical(query)
            if understood in known:
                already += 1
                continue
            if len(known) >= rules.max_per_chat:
                problems.append(OverLimit(number, rules.max_per_chat))
                continue
            filters.add_filter(session, chat_id=chat_id, source=line, canonical=understood, now=now)
            known.add(understood)
            added += 1
    return Imported(added, problems, already)
