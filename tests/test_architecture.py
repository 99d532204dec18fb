"""The layers hold: the core is pure (it imports nothing that does I/O or knows about the edges);
only the use cases (bot/service) talk to the store; command handlers call only the application
(bot/service/app.py); the sender knows no database; one parser reads filters."""

from __future__ import annotations

import ast
from enum import StrEnum
from pathlib import Path

import pytest

BOT = Path(__file__).resolve().parent.parent / "bot"
CORE = BOT / "core"
COMMANDS = sorted((BOT / "commands").rglob("*.py"))
ALLOWED_THIRD_PARTY = {
    "pylatexenc",
    "feedparser",
    "sklearn",
    "numpy",
    "scipy",
    "bibtexparser",
    "babel",
}
FORBIDDEN_STDLIB = {
    "os",
    "pathlib",
    "socket",
    "sqlite3",
    "subprocess",
    "asyncio",
    "logging",
    "shutil",
    "urllib",
    "http",
    "requests",
    "io",
}
# In-memory streams only: feedparser is handed a listing's bytes as a BytesIO, because given
# bytes or a string it may take them for a file name or an address and read that instead.
IN_MEMORY = {"io": {"BytesIO", "StringIO"}}


def imported(path: Path) -> dict[str, set[str]]:
    """Every module the file imports, with the names it takes from it (empty: the module)."""
    tree = ast.parse(path.read_text())
    found: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.setdefault(alias.name, set())
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.setdefault(node.module, set()).update(alias.name for alias in node.names)
    return found


def imports(path: Path) -> set[str]:
    return set(imported(path))


def outside(*packages: str) -> list[Path]:
    return sorted(
        p for p in BOT.rglob("*.py") if not any(p.is_relative_to(BOT / d) for d in packages)
    )


def name(path: Path) -> str:
    return str(path.relative_to(BOT.parent))


@pytest.mark.parametrize("module", sorted(CORE.rglob("*.py")), ids=lambda p: p.name)
def test_core_module_is_pure(module: Path) -> None:
    for name, names in imported(module).items():
        top = name.split(".")[0]
        if top == "bot":
            assert name.startswith("bot.core"), f"{module.name} imports {name}"
        elif names and names <= IN_MEMORY.get(name, set()):
            continue
        else:
            assert top not in FORBIDDEN_STDLIB, f"{module.name} imports {name}"
            assert top in ALLOWED_THIRD_PARTY or top in _stdlib(), f"{module.name} imports {name}"


def _stdlib() -> frozenset[str]:
    import sys

    return frozenset(sys.stdlib_module_names) | {"__future__"}


# The wiring opens the database and hands it to the use cases, or says why it cannot (a bad
# address, a schema older or newer than the code); it reads nothing through it.
OPENS_THE_DATABASE = {"bot/cli.py", "bot/runtime.py"}
WIRING_NAMES = {"Database", "StoreError", "DatabaseUrlError", "SchemaAhead", "SchemaBehind"}


@pytest.mark.parametrize("module", outside("service", "store"), ids=name)
def test_only_the_use_cases_talk_to_the_store(module: Path) -> None:
    for imported_module, names in imported(module).items():
        if not imported_module.startswith("bot.store"):
            continue
        assert name(module) in OPENS_THE_DATABASE, f"{name(module)} imports {imported_module}"
        assert imported_module == "bot.store" and names <= WIRING_NAMES, (
            f"{name(module)} takes {names} from {imported_module}"
        )


@pytest.mark.parametrize(
    "module",
    [
        *COMMANDS,
        BOT / "console.py",
        BOT / "sender.py",
        *sorted((BOT / "telegram").rglob("*.py")),
    ],
    ids=name,
)
def test_adapters_and_the_sender_import_nothing_from_the_store(module: Path) -> None:
    assert not [m for m in imports(module) if m.startswith("bot.store") or m == "sqlmodel"]


@pytest.mark.parametrize("module", COMMANDS, ids=name)
def test_handlers_call_only_the_application(module: Path) -> None:
    """A handler parses, calls the application (bot/service/app.py) and renders: from the use
    cases it imports only that module, which re-exports the result types it renders; from the
    runtime it reads only `runtime.app`; of the application it calls methods, never reaching
    through to the parts it owns (`app.postman.send_card`)."""
    tree = ast.parse(module.read_text())
    relative = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level]
    assert relative == [], f"{name(module)}: absolute imports, so that this test sees them"
    service = {m for m in imports(module) if m.startswith("bot.service")}
    assert service <= {"bot.service.app"}, f"{name(module)} imports {service}"
    assert _reached_through(tree) == []


def _reached_through(tree: ast.AST) -> list[str]:
    """`runtime.x` but `runtime.app`, and `app.x.y`: what a handler must not touch."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        owner = node.value
        if isinstance(owner, ast.Name) and owner.id == "runtime" and node.attr != "app":
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
        if isinstance(owner, ast.Attribute) and _is_app(owner.value):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


def _is_app(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id == "app"
    return isinstance(node, ast.Attribute) and node.attr == "app"


def test_the_handler_check_finds_a_reach() -> None:
    source = "runtime.database; runtime.app.postman.send(); app.ranker.changed(1); app.rate(1)"
    assert len(_reached_through(ast.parse(source))) == 3


def test_the_sender_knows_no_use_case() -> None:
    assert not [m for m in imports(BOT / "sender.py") if m.startswith(("bot.service", "bot.store"))]


@pytest.mark.parametrize("module", sorted(BOT.rglob("*.py")), ids=name)
def test_filters_are_parsed_by_the_one_parser(module: Path) -> None:
    """parse_query takes limits; only FilterRules (bot/core/query.py), bound to the settings'
    limits, calls it, so no part of paperbot reads a filter under other limits."""
    if module == CORE / "query.py":
        return
    assert "parse_query" not in module.read_text(), f"{name(module)} calls parse_query"


STATE_FIELDS = {"status", "mode", "digest_style"}  # what a chat, a ledger row and a file move by


def _state_literals() -> set[str]:
    from bot.core import states

    return {
        member.value
        for value in vars(states).values()
        if isinstance(value, type) and issubclass(value, StrEnum) and value is not StrEnum
        for member in value
    }


def _compared_to_literals(tree: ast.AST, literals: set[str]) -> list[str]:
    """`x.status == "sent"`, `chat.mode in ("instant", ...)`: a state field against a literal."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        fields = [s for s in sides if isinstance(s, ast.Attribute) and s.attr in STATE_FIELDS]
        constants = [
            c.value
            for s in sides
            for c in ([s] if isinstance(s, ast.Constant) else getattr(s, "elts", []))
            if isinstance(c, ast.Constant) and isinstance(c.value, str)
        ]
        if fields and set(constants) & literals:
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


@pytest.mark.parametrize("module", outside("store"), ids=name)
def test_states_are_compared_by_name_outside_the_store(module: Path) -> None:
    """States are StrEnums (bot/core/states.py): adding one is a member there and the code
    that acts on it, never a string to find in every file."""
    assert _compared_to_literals(ast.parse(module.read_text()), _state_literals()) == []


def test_the_state_check_finds_a_literal() -> None:
    source = 'if row.status == "sent" or chat.mode in ("instant", "x"): pass'
    assert len(_compared_to_literals(ast.parse(source), _state_literals())) == 2


# Typed filters, checked as the user sends them (/subscribe, /preview): the filter language only.
PARSES_TYPED = {BOT / "service" / "subscriptions.py", BOT / "service" / "preview.py"}


def _filter_kind_reads(tree: ast.AST) -> list[str]:
    """A stored filter parsed as keywords (`rules.parse(...)`), or told apart by the `like:`
    prefix itself (the literal, or LIKE_PREFIX used for it); an f-string's "like:{row}" is a
    button's data, not a filter."""
    found = []
    in_fstrings = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "parse" and ast.unparse(node.func.value).endswith("rules"):
                found.append(ast.unparse(node))
            read = ast.unparse(node).lower()
            if node.func.attr == "startswith" and ("like:" in read or "like_prefix" in read):
                found.append(ast.unparse(node))
        if isinstance(node, ast.Constant) and node.value == "like:" and id(node) not in in_fstrings:
            found.append(repr(node.value))
    return found


@pytest.mark.parametrize("module", sorted(BOT.rglob("*.py")), ids=name)
def test_a_stored_filter_is_compiled_in_one_function(module: Path) -> None:
    """Stored filters are read by their kind through FilterRules.compile (keywords or a "more
    like this" filter's seeds), never parsed as keywords, nor told apart by their prefix."""
    if module == CORE / "query.py" or module in PARSES_TYPED:
        return
    assert _filter_kind_reads(ast.parse(module.read_text())) == [], name(module)


def test_the_filter_kind_check_finds_a_prefix_and_a_parse() -> None:
    source = (
        'if stored.source.startswith("like:"): pass\n'
        "similar = source.startswith(LIKE_PREFIX)\n"
        "tree = self.rules.parse(stored.source)\n"
        'button = f"like:{row}"\n'
    )
    # two startswith, the first's literal, the parse; not the button's f-string
    assert len(_filter_kind_reads(ast.parse(source))) == 4
