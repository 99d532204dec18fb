"""The documents say what the code does: the README's test command is CI's, every setting is in
the example config and the README, every command is in /help, the menu and the README."""

from __future__ import annotations

import re

from bot.commands import COMMANDS, Caller, run_command
from bot.config import Settings
from bot.runtime import Runtime
from bot.store import Database
from bot.telegram.app import bot_menu
from tests.conftest import ROOT
from tests.transports import SilentTransport

README = (ROOT / "README.md").read_text()


def quick_start_commands() -> list[str]:
    section = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.+?)\n```", section)


def test_quick_start_is_two_commands() -> None:
    commands = quick_start_commands()
    assert len(commands) == 2
    assert commands[0].endswith("pip install . && paperbot console")
    assert commands[1].endswith("python -m pytest")


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    install_and_test = quick_start_commands()[1].split("&& ", 2)[2]  # after venv and activate
    assert install_and_test.replace("pip install ", "pip install -q ") in ci


def test_every_setting_is_in_the_example_config_and_the_readme() -> None:
    config = (ROOT / "config" / "paperbot.toml").read_text()
    for section_name, section in Settings.model_fields.items():
        assert f"[{section_name}]" in config
        assert section.annotation is not None
        for key in section.annotation.model_fields:  # type: ignore[union-attr]
            assert re.search(rf"^#? ?{key} =", config, re.M), f"{section_name}.{key} not in config"
            variable = f"PAPERBOT_{section_name}_{key}".upper()
            assert variable in README, f"{variable} not in README"


async def test_every_command_is_in_help_the_menu_and_the_readme(database: Database) -> None:
    settings = Settings(admin={"chat_ids": [1]})
    runtime = Runtime.build(
        settings, database, SilentTransport("/help sends nothing through the ledger")
    )
    help_text = (await run_command(runtime, Caller(1), "help", "")).text
    menu = {name for name, _ in bot_menu()}
    for command in COMMANDS:
        for name in (command.name, *command.aliases):
            assert f"/{name}" in help_text, f"/{name} not in /help"
            assert f"`/{name}" in README or f"(`/{name}`)" in README, f"/{name} not in README"
        assert command.name in menu or command.operators_only


def test_the_readme_points_at_nothing_outside_the_repository() -> None:
    """A clone holds only the repository: the README's links resolve inside it, and data kept
    elsewhere (the real arXiv days) is described, not linked as a path beside it."""
    assert "../" not in README
    links = re.findall(r"\]\(([^)#\s]+)", README)
    for target in (link for link in links if not link.startswith(("http://", "https://"))):
        assert (ROOT / target).exists(), f"README links {target}, which a clone does not have"


def test_every_test_the_documents_name_exists() -> None:
    """docs/*.md name the tests that show each guarantee (`tests/x.py::test_name`, or a later
    `::test_name` of the same file): each file and each test must exist."""
    named = 0
    for document in sorted((ROOT / "docs").glob("*.md")):
        for line in document.read_text().splitlines():
            current = None
            for path, name in re.findall(r"`(tests/[\w/]+\.py)?(?:::(\w+))?`", line):
                if path:
                    current = path
                    assert (ROOT / path).is_file(), f"{document.name}: {path} is not a file"
                if name:
                    assert current, f"{document.name}: ::{name} names no file before it"
                    source = (ROOT / current).read_text()
                    found = re.search(rf"^(async )?def {name}\(", source, re.M)
                    assert found, f"{document.name}: {current} has no test {name}"
                    named += 1
    assert named >= 40  # RELIABILITY.md names a test for every guarantee
