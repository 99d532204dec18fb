"""`paperbot config`: every setting's value in effect and where it came from (a variable, a
secret's file, the settings file or the default), secrets masked.

Where a value came from is read through the very sources the settings are loaded from, in their
order (bot/config.py, `Settings.settings_customise_sources`): the first that holds a key wins, as
it does when the settings are built."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, get_args

from pydantic import SecretStr
from pydantic.fields import FieldInfo
from pydantic_settings import EnvSettingsSource, InitSettingsSource, TomlConfigSettingsSource

from bot.config import SecretFiles, Settings, config_file
from bot.core.secrets import masked_urls

UNSET, SET = "<unset>", "<set>"

Origin = Callable[[str, str], str]  # (section, key) -> the variable or file that gave it


@dataclass(frozen=True)
class ShownSetting:
    name: str  # section.key, as in the settings file
    env: str  # PAPERBOT_SECTION_KEY
    value: object  # as shown: a secret as <set> or <unset>, URLs' passwords as ***
    source: str  # environment, file or default
    origin: str | None  # the variable (or PAPERBOT_..._FILE) or the settings file; None: default

    def as_json(self) -> dict[str, object]:
        return asdict(self)


def shown_settings(settings: Settings) -> list[ShownSetting]:
    """Each setting of `settings` (loaded from the environment and files as they are now)."""
    sources = _sources()
    found = []
    for section_name in Settings.model_fields:
        section = getattr(settings, section_name)
        for key, field in type(section).model_fields.items():
            source, origin = _source_of(sources, section_name, key)
            found.append(
                ShownSetting(
                    name=f"{section_name}.{key}",
                    env=f"PAPERBOT_{section_name}_{key}".upper(),
                    value=_shown(getattr(section, key), secret=_is_secret(field)),
                    source=source,
                    origin=origin,
                )
            )
    return found


def config_json(settings: Settings) -> dict[str, object]:
    """`paperbot config --json`: the settings file and each setting."""
    path = config_file()
    return {
        "config_file": str(path) if path.is_file() else None,
        "settings": [shown.as_json() for shown in shown_settings(settings)],
    }


def config_text(settings: Settings) -> str:
    """`paperbot config`: the settings file, then a line a setting (variable, name, where it
    came from, value)."""
    path = config_file()
    lines = [f"settings file: {path}" + ("" if path.is_file() else " (none there: not read)")]
    rows = [
        (
            shown.env,
            shown.name,
            shown.source
            + ("" if shown.origin in (None, shown.env, str(path)) else f" ({shown.origin})"),
            _text(shown.value),
        )
        for shown in shown_settings(settings)
    ]
    widths = [max(len(row[column]) for row in rows) for column in range(3)]
    for row in rows:
        columns = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        lines.append("  ".join([*columns, row[3]]))
    return "\n".join(lines)


def _text(value: object) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, float):
        return f"{value:g}"
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _sources() -> list[tuple[str, Origin, dict[str, Any]]]:
    """What each source of the settings holds, first the one that wins."""
    empty = InitSettingsSource(Settings, init_kwargs={})
    environment = EnvSettingsSource(Settings)
    chain = Settings.settings_customise_sources(Settings, empty, environment, empty, empty)
    path = str(config_file())
    found: list[tuple[str, Origin, dict[str, Any]]] = []
    for source in chain:
        if isinstance(source, SecretFiles):
            found.append(("environment", lambda s, k: f"PAPERBOT_{s}_{k}_FILE".upper(), source()))
        elif isinstance(source, EnvSettingsSource):
            found.append(("environment", lambda s, k: f"PAPERBOT_{s}_{k}".upper(), source()))
        elif isinstance(source, TomlConfigSettingsSource):
            found.append(("file", lambda s, k: path, source()))
    return found


def _source_of(
    sources: list[tuple[str, Origin, dict[str, Any]]], section: str, key: str
) -> tuple[str, str | None]:
    for kind, origin, values in sources:
        held = values.get(section)
        if isinstance(held, dict) and key in held:
            return kind, origin(section, key)
    return "default", None


def _is_secret(field: FieldInfo) -> bool:
    return field.annotation is SecretStr or SecretStr in get_args(field.annotation)


def _shown(value: object, *, secret: bool) -> object:
    """The value as it may be printed: a secret only as set or not, a URL without its
    password, a path as text."""
    if secret:
        held = value.get_secret_value() if isinstance(value, SecretStr) else value
        return SET if held else UNSET
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, str):
        return masked_urls(value)
    if isinstance(value, list):
        return [_shown(item, secret=False) for item in value]
    return value
