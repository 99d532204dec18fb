"""Settings: config/paperbot.toml (path in PAPERBOT_CONFIG), overridden by PAPERBOT_<SECTION>_<KEY>.

Loaded and validated once, in main(); a wrong value is one clear line naming the setting.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from bot.core.query import FilterRules, QueryLimits

DEFAULT_CONFIG = Path("config/paperbot.toml")


class SettingsError(ValueError):
    """A setting is missing or wrong; str() is what the operator reads."""


def _split_list(value: Any) -> Any:
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TelegramSettings(Section):
    token: SecretStr | None = None
    api_url: str = "https://api.telegram.org/bot"


class DatabaseSettings(Section):
    url: str = "sqlite:///data/paperbot.db"


class InboxSettings(Section):
    dir: Path = Path("seeds")
    scan_seconds: float = Field(default=60, gt=0)
    settle_seconds: float = Field(default=5, ge=0)


class FeedsSettings(Section):
    urls: Annotated[list[str], NoDecode] = []
    poll_seconds: float = Field(default=1800, gt=0)

    _split = field_validator("urls", mode="before")(_split_list)


class MetricsSettings(Section):
    port: int = Field(default=0, ge=0, le=65535)


class DeliverySettings(Section):
    # several processes on one PostgreSQL: a chat claimed by a process that stopped renewing
    # (killed) is free after this many seconds; its holder renews three times as often
    lease_seconds: float = Field(default=60, ge=3)


class RankingSettings(Section):
    window: int = Field(default=4000, ge=100)  # papers the TF-IDF vocabulary is fitted on
    similar_share: float = Field(default=0.01, gt=0, le=0.5)  # of a day a "like:" filter passes


class AdminSettings(Section):
    chat_ids: Annotated[list[int], NoDecode] = []

    _split = field_validator("chat_ids", mode="before")(_split_list)


class FilterSettings(Section):
    max_length: int = Field(default=300, ge=10)
    max_terms: int = Field(default=20, ge=1)
    max_depth: int = Field(default=6, ge=1)
    max_per_chat: int = Field(default=50, ge=1)

    @property
    def rules(self) -> FilterRules:
        """The one filter parser, bound to these limits (bot.core.query.FilterRules)."""
        limits = QueryLimits(self.max_length, self.max_terms, self.max_depth)
        return FilterRules(limits, self.max_per_chat)


class MemorySettings(Section):
    settle_after: int = Field(default=10_000, ge=0)  # filters gained before settling; 0: never
    huge_pages: bool = True  # settling also moves the heap to transparent huge pages (Linux)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="PAPERBOT_",
        env_nested_delimiter="_",
        env_nested_max_split=1,
        extra="ignore",
    )

    telegram: TelegramSettings = TelegramSettings()
    database: DatabaseSettings = DatabaseSettings()
    inbox: InboxSettings = InboxSettings()
    feeds: FeedsSettings = FeedsSettings()
    metrics: MetricsSettings = MetricsSettings()
    admin: AdminSettings = AdminSettings()
    filters: FilterSettings = FilterSettings()
    memory: MemorySettings = MemorySettings()
    ranking: RankingSettings = RankingSettings()
    delivery: DeliverySettings = DeliverySettings()

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml_path = Path(os.environ.get("PAPERBOT_CONFIG") or DEFAULT_CONFIG)
        return (init_settings, env_settings, TomlConfigSettingsSource(settings_cls, toml_path))

    def require_token(self) -> str:
        if self.telegram.token is None or not self.telegram.token.get_secret_value().strip():
            raise SettingsError(
                "no Telegram bot token: set PAPERBOT_TELEGRAM_TOKEN (or [telegram] token in "
                "config/paperbot.toml)"
            )
        return self.telegram.token.get_secret_value().strip()


def _describe(error: Any) -> str:
    location = [str(part) for part in error["loc"] if not isinstance(part, int)]
    name = ".".join(location)
    variable = "PAPERBOT_" + "_".join(location[:2]).upper()
    value = error.get("input")
    shown = "" if isinstance(value, dict) else f" (got {value!r})"
    if error["type"] == "extra_forbidden":
        return f"unknown setting {name}{shown}: check the spelling against config/paperbot.toml"
    return f"setting {name} ({variable}): {error['msg']}{shown}"


def load_settings() -> Settings:
    config = os.environ.get("PAPERBOT_CONFIG")
    if config and not Path(config).is_file():
        raise SettingsError(f"PAPERBOT_CONFIG names {config!r}, which is not a file")
    try:
        return Settings()
    except ValidationError as error:
        raise SettingsError("; ".join(_describe(e) for e in error.errors())) from None
    except (ValueError, OSError) as error:  # a TOML syntax error, say
        raise SettingsError(f"cannot read the settings: {error}") from None
