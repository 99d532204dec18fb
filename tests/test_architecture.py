"""The core stays pure: it imports nothing that does I/O or knows about the edges."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parent.parent / "bot" / "core"
ALLOWED_THIRD_PARTY = {"pylatexenc", "feedparser"}
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


def imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


@pytest.mark.parametrize("module", sorted(CORE.rglob("*.py")), ids=lambda p: p.name)
def test_core_module_is_pure(module: Path) -> None:
    for name in imports(module):
        top = name.split(".")[0]
        if top == "bot":
            assert name.startswith("bot.core"), f"{module.name} imports {name}"
        else:
            assert top not in FORBIDDEN_STDLIB, f"{module.name} imports {name}"
            assert top in ALLOWED_THIRD_PARTY or top in _stdlib(), f"{module.name} imports {name}"


def _stdlib() -> frozenset[str]:
    import sys

    return frozenset(sys.stdlib_module_names) | {"__future__"}
