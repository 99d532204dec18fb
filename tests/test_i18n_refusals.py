"""A refusal made in the core reaches the reader in their language: the command layer puts the
Problem it carries into the chat's words (tests/pseudo.py brackets every message of the code;
what stays outside the brackets is the reader's own text: the filter, the line, a category)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.commands.filters import _categories_warning, _import_problem
from bot.commands.library import imported_library
from bot.commands.replies import bad_filter
from bot.config import InboxSettings, Settings
from bot.core.categories import UnknownCategory
from bot.core.i18n import ENGLISH
from bot.core.library import LibraryFormat, read_library
from bot.core.query import FilterRules, InvalidQuery
from bot.runtime import Runtime
from bot.service.app import (
    NOT_A_LIBRARY,
    BadFilter,
    BadLine,
    LibraryImported,
    Paperbot,
    Unreadable,
)
from bot.service.subscriptions import read_filter
from bot.store import Database
from tests.conftest import Clock
from tests.pseudo import pseudo_translator, unwrapped
from tests.transports import RecordingTransport

T = pseudo_translator()
CHAT = 42


def refused(source: str) -> BadFilter:
    found = read_filter(FilterRules(), source)
    assert isinstance(found, BadFilter)
    return found


def test_a_bad_filter_is_told_in_the_readers_language() -> None:
    reply = bad_filter(T, refused("foo:bar"))
    assert reply.text == (
        "⟦That filter does not work: ⟦⟦unknown field 'foo:'; use ti:, abs:, au:, cat:, mesh:, "
        "jr: or src:⟧ at 1⟧.⟧\n<code>foo:bar\n^</code>\n⟦/help shows the syntax with examples.⟧"
    )


def test_a_bad_filter_reads_as_before_in_english() -> None:
    reply = bad_filter(ENGLISH, refused("a (b OR"))
    assert reply.text == (
        "That filter does not work: 'OR' has nothing after it at 6.\n<code>a (b OR\n     ^</code>"
        "\n/help shows the syntax with examples."
    )
    assert unwrapped(bad_filter(T, refused("a (b OR")).text) == reply.text


def test_a_bad_import_line_is_told_in_the_readers_language() -> None:
    with pytest.raises(InvalidQuery) as error:
        FilterRules().parse('"kv')
    line = BadLine(4, '"kv', error.value.problem)
    assert _import_problem(T, line) == ('⟦line 4: ⟦⟦unbalanced quote⟧ at 1⟧: <code>"kv</code>⟧')


def test_an_unknown_category_is_named_in_the_readers_language() -> None:
    unknown = (
        UnknownCategory("cat:cs.ml", (("stat.ML", "Machine Learning"),)),
        UnknownCategory("cat:zz", ()),
    )
    assert _categories_warning(T, unknown) == (
        "\n⟦⚠ <code>cat:cs.ml</code> names no arXiv category, so no paper has it. The nearest: "
        "stat.ML (Machine Learning).⟧"
        "\n⟦⚠ <code>cat:zz</code> names no arXiv category, so no paper has it.⟧"
    )


def test_a_librarys_unreadable_entries_are_told_in_the_readers_language() -> None:
    found = read_library("2506.01234\nhttps://example.org/<x>\n")
    assert found is not None and found.format is LibraryFormat.ARXIV_IDS
    result = LibraryImported(found.format, 1, [], 0, 1, found.bad, import_id=1)
    lines = imported_library(T, result).text.splitlines()
    assert lines[0] == "⟦Read 1 entry (⟦arXiv ids⟧).⟧"
    assert lines[-1] == "• ⟦⟦line 2⟧: ⟦this address names no arXiv paper⟧⟧"


def test_a_file_that_is_no_library_is_told_in_the_readers_language() -> None:
    reply = imported_library(T, NOT_A_LIBRARY)
    assert reply.text.startswith("⟦Nothing imported: ⟦I could not tell what this is.")
    assert reply.text.endswith("arXiv ids or links one per line⟧.⟧")


@pytest.fixture
def app(tmp_path: Path, database: Database, clock: Clock) -> Paperbot:
    settings = Settings(inbox=InboxSettings(dir=tmp_path))
    return Runtime.build(settings, database, RecordingTransport(), clock=clock).app


async def test_a_library_with_no_readable_entry_is_told_in_the_readers_language(
    app: Paperbot,
) -> None:
    chat = app.enter(CHAT, "private")
    result = await app.import_library(chat, "TY  - GEN\nER  - \nTY  - GEN\nER  - \n")
    assert isinstance(result, Unreadable)
    assert imported_library(T, result).text == (
        "⟦Nothing imported: ⟦no entry of this RIS could be read "
        "(⟦⟦line 1⟧: ⟦no title, arXiv id or DOI⟧⟧; ⟦⟦line 3⟧: ⟦no title, arXiv id or DOI⟧⟧)⟧.⟧"
    )


async def test_an_imported_seed_not_stored_is_told_in_the_readers_language(
    app: Paperbot,
) -> None:
    chat = app.enter(CHAT, "private")
    report = await app.import_lines(chat, ["like:2401.00001"])
    [problem] = report.filters.problems
    assert isinstance(problem, BadLine)
    assert _import_problem(T, problem) == (
        "⟦line 1: ⟦not in my database yet: 2401.00001⟧: <code>like:2401.00001</code>⟧"
    )
