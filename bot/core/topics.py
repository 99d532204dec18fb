"""Forum topics: which topic of a forum supergroup each waiting paper goes to.

A filter belongs to the topic it was subscribed in (None: General). A paper goes to the topic of
its first filter in /list order (the lowest id) among those still stored, so that a paper that
filters of two topics matched goes to one topic, once; a paper whose filters were all removed
goes to General, as promised when it matched.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from bot.core.chat import Delivery, Filter
from bot.core.i18n import ENGLISH, Translator
from bot.core.render import fit

SHOWN = 60  # characters of a filter named in a notice
Topic = int | None  # a forum topic's message thread id; None: General (or no topics at all)


def filter_topics(filters: Sequence[Filter]) -> dict[int, Topic]:
    """Filter id -> its topic."""
    return {f.id: f.topic for f in filters}


def topic_of(filter_ids: Sequence[int], topics: Mapping[int, Topic]) -> Topic:
    """The topic of the first stored filter among `filter_ids` (General when none is)."""
    stored = [f for f in filter_ids if f in topics]
    return topics[min(stored)] if stored else None


def split_by_topic(
    rows: Sequence[Delivery], topics: Mapping[int, Topic]
) -> list[tuple[Topic, list[Delivery]]]:
    """The rows in groups, one a topic (General first, then topics by id), each paper's rows
    (the paper and a new version of it) in one group, in their order."""
    if not rows:
        return []
    if all(topic is None for topic in topics.values()):  # most chats: no topics, one group
        return [(None, list(rows))]
    by_paper: dict[int, list[int]] = defaultdict(list)
    for row in rows:
        by_paper[row.paper_id].extend(row.filter_ids)
    paper_topic = {paper: topic_of(ids, topics) for paper, ids in by_paper.items()}
    groups: dict[Topic, list[Delivery]] = defaultdict(list)
    for row in rows:
        groups[paper_topic[row.paper_id]].append(row)
    return sorted(groups.items(), key=lambda group: -1 if group[0] is None else group[0])


def topic_name(topic: Topic, *, t: Translator = ENGLISH) -> str:
    """How a reply names a topic: Telegram tells bots a topic's id, not its current name."""
    return t.gettext("General") if topic is None else t.gettext("topic {id}").format(id=topic)


def topic_lost_notice(
    topic: int,
    unbound: Sequence[Filter],
    numbers: Mapping[int, int],
    *,
    t: Translator = ENGLISH,
) -> str:
    """What a forum group's administrators are told in General when a topic was closed or
    deleted: which filters lost it (as /list numbers them), and how to bind them again."""
    named = [
        f"{numbers[f.id]} (<code>{fit(f.source, SHOWN)}</code>)" if f.id in numbers else
        f"<code>{fit(f.source, SHOWN)}</code>"
        for f in unbound
    ]  # fmt: skip
    first = next(iter(numbers[f.id] for f in unbound if f.id in numbers), "N")
    return t.ngettext(
        "Administrators: {topic} is closed or was deleted, so filter {filters} now posts here "
        "in General; what was on its way came here, nothing was lost. To give a filter a topic "
        "again, send <code>/topic {number}</code> inside that topic.",
        "Administrators: {topic} is closed or was deleted, so filters {filters} now post here "
        "in General; what was on its way came here, nothing was lost. To give a filter a topic "
        "again, send <code>/topic {number}</code> inside that topic.",
        len(named),
    ).format(topic=topic_name(topic, t=t), filters=", ".join(named), number=first)
