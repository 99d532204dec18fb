"""Which forum topic each waiting paper goes to: its first stored filter's, General otherwise."""

from __future__ import annotations

import gettext
from datetime import UTC, datetime

from bot.core.chat import Delivery, Filter
from bot.core.i18n import Translator
from bot.core.states import Status
from bot.core.topics import filter_topics, split_by_topic, topic_lost_notice, topic_name, topic_of

NOW = datetime(2026, 10, 22, tzinfo=UTC)


def row(row_id: int, paper_id: int, *filter_ids: int, revision: int = 0) -> Delivery:
    pending = Status.PENDING
    return Delivery(row_id, 1, paper_id, revision, list(filter_ids), pending, None, None, NOW)


def filter_(filter_id: int, source: str, topic: int | None) -> Filter:
    return Filter(filter_id, 1, source, source, NOW, topic)


TOPICS = {1: None, 2: 10, 3: 20}  # filter 1 in General, 2 in topic 10, 3 in topic 20


def test_a_paper_goes_to_its_first_stored_filters_topic() -> None:
    assert topic_of([2, 3], TOPICS) == 10
    assert topic_of([3, 2], TOPICS) == 10  # the first in /list order, not in the row's
    assert topic_of([1, 3], TOPICS) is None  # General
    assert topic_of([9, 3], TOPICS) == 20  # filter 9 was removed: the next one's topic
    assert topic_of([9], TOPICS) is None  # every filter removed: General, still sent


def test_rows_split_one_group_a_topic_general_first_each_paper_once() -> None:
    rows = [row(1, 100, 3), row(2, 101, 2, 3), row(3, 102, 1, 2), row(4, 103, 3)]
    groups = split_by_topic(rows, TOPICS)
    assert [(topic, [r.id for r in grouped]) for topic, grouped in groups] == [
        (None, [3]),
        (10, [2]),
        (20, [1, 4]),
    ]
    assert sorted(r.id for _, grouped in groups for r in grouped) == [1, 2, 3, 4]


def test_a_papers_new_version_goes_with_it_to_one_topic() -> None:
    # the paper's row names filter 3, its update's filter 2: both go to the first filter's
    rows = [row(1, 100, 3), row(2, 100, 2, revision=2)]
    assert [(t, [r.id for r in g]) for t, g in split_by_topic(rows, TOPICS)] == [(10, [1, 2])]


def test_a_chat_without_topics_has_one_group() -> None:
    rows = [row(1, 100, 1), row(2, 101, 1)]
    assert split_by_topic(rows, {1: None}) == [(None, rows)]
    assert split_by_topic([], TOPICS) == []


def test_filter_topics_and_names() -> None:
    assert filter_topics([filter_(1, "a", None), filter_(2, "b", 10)]) == {1: None, 2: 10}
    assert topic_name(None) == "General"
    assert topic_name(10) == "topic 10"


def test_the_lost_topic_notice_names_the_filters_and_the_way_back() -> None:
    notice = topic_lost_notice(10, [filter_(2, '"kv <cache>"', 10)], {1: 1, 2: 2})
    assert notice == (
        "Administrators: topic 10 is closed or was deleted, so filter 2 "
        '(<code>"kv &lt;cache&gt;"</code>) now posts here in General; what was on its way came '
        "here, nothing was lost. To give a filter a topic again, send <code>/topic 2</code> "
        "inside that topic."
    )
    two = topic_lost_notice(10, [filter_(2, "a", 10), filter_(5, "b", 10)], {2: 1, 5: 3})
    assert "so filters 1 (<code>a</code>), 3 (<code>b</code>) now post here" in two


class Bracketed(gettext.NullTranslations):
    """Every message "translated" as itself in brackets."""

    def gettext(self, message: str) -> str:
        return f"[{message}]"

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return f"[{singular if n == 1 else plural}]"


def test_a_lost_topics_notice_is_in_the_readers_language() -> None:
    t = Translator("de", Bracketed())
    notice = topic_lost_notice(10, [filter_(2, "a", 10)], {2: 1}, t=t)
    assert notice.startswith("[Administrators: [topic 10] is closed or was deleted, so filter 1")
    assert notice.endswith("inside that topic.]")
    assert topic_name(None, t=t) == "[General]"
