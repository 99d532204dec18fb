"""A chat's filters: subscribe, unsubscribe, remove, import and preview, each filter read by the
settings' one parser (FilterRules) and compared by its canonical form."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import pytest

from bot.core.query import FilterRules, QueryLimits
from bot.service import chats, ingest, subscriptions
from bot.service.preview import RecentMatches, RecentPapers
from bot.service.subscriptions import (
    AlreadyFollowed,
    AtLimit,
    BadFilter,
    BadLine,
    Imported,
    NoSuchFilter,
    OverLimit,
    Previewed,
    Subscribed,
)
from bot.store import Database
from tests.conftest import SEEDS, Clock

CHAT = 42
RULES = FilterRules(QueryLimits(max_length=40, max_terms=3), max_per_chat=3)
NOTHING = RecentMatches(0, [])
BENICE = "BeNice! Closing Looping's Inference-Memory Gap via KV-Sharing"
ELASTICKV = (
    "ElasticKV: a mixed-fidelity KV runtime built on the observation that target fidelity need "
    "not gate execution"
)
TRANSFORMERS = [
    "Low-precision Transformer systems increasingly quantize attention matrix multiplications, "
    "while softmax often remains at higher precision",
    "On NVIDIA Blackwell B200, tensor-core throughput outpaces special-function exponential "
    "throughput by more than two orders of magnitude…",
    "MA-JEPA: a stochastic world model that replaces observation reconstruction with prediction "
    "of target representations, enabling model-based…",
]
UNKNOWN_FIELD = "unknown field 'foo:'; use ti:, abs:, au:, cat:, mesh:, jr: or src: at 1"


def bad_filter(source: str, message: str, position: int | None) -> tuple[object, ...]:
    return ("bad filter", source, message, position)


def bad_line(number: int, source: str, message: str) -> tuple[object, ...]:
    return ("bad line", number, source, message)


def english(result: object) -> object:
    """A refusal as what it says in English (tests/core/test_i18n_errors.py puts its Problem
    into other words), anything else as it is."""
    if isinstance(result, BadFilter):
        return bad_filter(result.source, result.message, result.position)
    if isinstance(result, BadLine):
        return bad_line(result.number, result.source, result.message)
    if isinstance(result, Imported):
        return dataclasses.replace(result, problems=[english(p) for p in result.problems])
    return result


def follow(database: Database, clock: Clock, *sources: str) -> None:
    chats.enter(database, chat_id=CHAT, kind="private", now=clock())
    for source in sources:
        assert isinstance(subscribe(database, clock, source), Subscribed)


def subscribe(database: Database, clock: Clock, source: str) -> object:
    """/subscribe's use case for the test chat, its examples from the database's recent papers."""
    return subscriptions.subscribe(
        database,
        chat_id=CHAT,
        source=source,
        rules=RULES,
        now=clock(),
        recent=RecentPapers(database),
    )


def sources(database: Database) -> list[str]:
    return [f.source for f in subscriptions.list_filters(database, chat_id=CHAT)]


@pytest.mark.parametrize(
    ("followed", "source", "expected"),
    [
        ((), "looped", Subscribed(1, "looped", NOTHING, 1)),
        (("mamba",), "Diffusion Models", Subscribed(2, "diffusion AND models", NOTHING, 2)),
        # the same canonical form, written differently
        (("KV-cache",), '"kv cache"', AlreadyFollowed(1, '"kv cache"')),
        (("looped", '"KV Cache"'), "kv-cache", AlreadyFollowed(2, '"kv cache"')),
        (("au:Hassani",), "AU:hassani", AlreadyFollowed(1, "au:hassani")),
        # kv cache without quotes is two words, not the phrase
        (("KV-cache",), "kv cache", Subscribed(2, "kv AND cache", NOTHING, 2)),
        # at the limit, a new filter is refused but a followed one is still recognised
        (("looped", "mamba", "diffusion"), "transformer", AtLimit(3, 3)),
        (("looped", "mamba", "diffusion"), "Mamba", AlreadyFollowed(2, "mamba")),
        # bad filters: the message and where
        ((), "foo:bar", bad_filter("foo:bar", UNKNOWN_FIELD, 0)),
        ((), "a (b OR", bad_filter("a (b OR", "'OR' has nothing after it at 6", 5)),
        (
            (),
            "a b c d",
            bad_filter("a b c d", "too many terms (at most 3 in one filter) at 7", 6),
        ),
        ((), "x" * 41, bad_filter("x" * 41, "filter too long (41 characters, at most 40)", None)),
        (
            (),
            "-looped",
            bad_filter(
                "-looped",
                "a filter needs at least one word to look for, not only exclusions "
                "(e.g. 'distill* -self')",
                None,
            ),
        ),
    ],
)
def test_subscribe(
    any_database: Database, clock: Clock, followed: Sequence[str], source: str, expected: object
) -> None:
    follow(any_database, clock, *followed)
    result = subscribe(any_database, clock, source)
    assert english(result) == expected
    added = [source] if isinstance(expected, Subscribed) else []
    assert sources(any_database) == [*followed, *added]


@pytest.mark.parametrize(
    ("source", "recent"),
    [
        ('"kv cache"', RecentMatches(2, [BENICE, ELASTICKV], derived=frozenset({ELASTICKV}))),
        (
            "au:Hassani",
            RecentMatches(
                1, ["When to Follow the Teacher: Advantage-Based On-Policy Distillation"]
            ),
        ),
        # the first 3 titles shown, all headlines derived from the abstract-only seed
        ("transformer", RecentMatches(5, TRANSFORMERS, derived=frozenset(TRANSFORMERS))),
        ("mamba", NOTHING),
    ],
)
def test_subscribed_tells_what_the_filter_would_have_matched(
    any_database: Database, clock: Clock, source: str, recent: RecentMatches
) -> None:
    ingest.ingest_paths(any_database, [SEEDS], clock=clock)
    follow(any_database, clock)
    result = subscribe(any_database, clock, source)
    assert isinstance(result, Subscribed) and result.recent == recent


@pytest.mark.parametrize(
    ("numbers", "removed", "left"),
    [
        ([1, 3], ["looped", "diffusion"], ["mamba"]),
        ([3, 1, 3], ["looped", "diffusion"], ["mamba"]),  # once each, in /list order
        ([2], ["mamba"], ["looped", "diffusion"]),
        (None, ["looped", "mamba", "diffusion"], []),  # all
    ],
)
def test_unsubscribe_by_list_numbers(
    any_database: Database,
    clock: Clock,
    numbers: list[int] | None,
    removed: list[str],
    left: list[str],
) -> None:
    follow(any_database, clock, "looped", "mamba", "diffusion")
    result = subscriptions.unsubscribe(any_database, chat_id=CHAT, numbers=numbers)
    assert isinstance(result, subscriptions.Unsubscribed)
    assert [f.source for f in result.removed] == removed
    assert sources(any_database) == left


@pytest.mark.parametrize("numbers", [[4], [0], [1, 4], [-1]])
def test_a_wrong_number_removes_nothing(
    any_database: Database, clock: Clock, numbers: list[int]
) -> None:
    follow(any_database, clock, "looped", "mamba", "diffusion")
    result = subscriptions.unsubscribe(any_database, chat_id=CHAT, numbers=numbers)
    wrong = next(n for n in sorted(numbers) if not 1 <= n <= 3)
    assert result == NoSuchFilter(wrong, 3)
    assert sources(any_database) == ["looped", "mamba", "diffusion"]


def test_unsubscribe_all_without_filters_removes_nothing(
    any_database: Database, clock: Clock
) -> None:
    follow(any_database, clock)
    assert subscriptions.unsubscribe(any_database, chat_id=CHAT, numbers=None) == (
        subscriptions.Unsubscribed([])
    )
    assert subscriptions.unsubscribe(any_database, chat_id=CHAT, numbers=[1]) == NoSuchFilter(1, 0)


def test_remove_filter_by_id_once(any_database: Database, clock: Clock) -> None:
    follow(any_database, clock, "looped", "mamba")
    looped, mamba = subscriptions.list_filters(any_database, chat_id=CHAT)
    assert subscriptions.remove_filter(any_database, chat_id=CHAT, filter_id=looped.id)
    assert not subscriptions.remove_filter(any_database, chat_id=CHAT, filter_id=looped.id)
    assert not subscriptions.remove_filter(any_database, chat_id=CHAT + 1, filter_id=mamba.id)
    assert sources(any_database) == ["mamba"]


def test_import_keeps_good_lines_and_reports_the_rest(any_database: Database, clock: Clock) -> None:
    follow(any_database, clock, "looped")
    lines = [
        "",
        "# my filters",
        "foo:bar",
        "KV-cache",
        '"kv cache"',  # the same as line 4
        "Looped",  # followed already
        "mamba",
        "diffusion",  # over the limit of 3
        "a (b OR",
    ]
    result = subscriptions.import_filters(
        any_database, chat_id=CHAT, lines=lines, rules=RULES, now=clock()
    )
    assert english(result) == Imported(
        2,
        [
            bad_line(3, "foo:bar", UNKNOWN_FIELD),
            OverLimit(8, 3),
            bad_line(9, "a (b OR", "'OR' has nothing after it at 6"),
        ],
        already=2,  # line 5 (the same as line 4, understood alike) and line 6
    )
    assert sources(any_database) == ["looped", "KV-cache", "mamba"]


def test_import_of_nothing_adds_nothing(any_database: Database, clock: Clock) -> None:
    follow(any_database, clock)
    result = subscriptions.import_filters(
        any_database, chat_id=CHAT, lines=["", "# only a comment"], rules=RULES, now=clock()
    )
    assert result == Imported(0, [])


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            "KV-cache",
            Previewed(
                '"kv cache"', RecentMatches(2, [BENICE, ELASTICKV], derived=frozenset({ELASTICKV}))
            ),
        ),
        ("looped", Previewed("looped", RecentMatches(1, [BENICE]))),
        ("mamba", Previewed("mamba", NOTHING)),
        ("foo:bar", bad_filter("foo:bar", UNKNOWN_FIELD, 0)),
    ],
)
def test_preview_saves_nothing(
    any_database: Database, clock: Clock, source: str, expected: object
) -> None:
    ingest.ingest_paths(any_database, [SEEDS], clock=clock)
    follow(any_database, clock)
    recent = RecentPapers(any_database)
    assert english(subscriptions.preview_filter(recent, source=source, rules=RULES)) == expected
    assert sources(any_database) == []
