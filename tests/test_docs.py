"""The documents say what the code does: the README's test command is CI's, every setting is in
the example config and the README."""

from __future__ import annotations

import re

from bot.config import Settings
from tests.conftest import ROOT

README = (ROOT / "README.md").read_text()


def quick_start_commands() -> list[str]:
    section = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.+?)\n```", section)


def test_quick_start_is_two_commands() -> None:
    commands = quick_start_commands()
    assert len(commands) == 2
    assert commands[0].endswith("paperbot ingest seeds/")
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
