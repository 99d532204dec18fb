"""Settings: config/paperbot.toml (path in PAPERBOT_CONFIG), overridden by PAPERBOT_<SECTION>_<KEY>.

Loaded and validated once, in main(); a wrong value is one clear line naming the setting.
"""

from __future__ import annotations

import errno
import ipaddress
import os
import re
from pathlib import Path
from typing import Annotated, Any, Literal, get_args
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic.fields import FieldInfo
from pydantic_core import PydanticCustomError
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from bot.core.query import FilterRules, QueryLimits
from bot.core.secrets import masked_urls

DEFAULT_CONFIG = Path("config/paperbot.toml")


def config_file() -> Path:
    """The settings file read: PAPERBOT_CONFIG's, or config/paperbot.toml (read when it exists)."""
    return Path(os.environ.get("PAPERBOT_CONFIG") or DEFAULT_CONFIG)


class SettingsError(ValueError):
    """A setting is missing or wrong; str() is what the operator reads."""


class StartupError(RuntimeError):
    """The process cannot start now, its settings being right (a port another process holds):
    str() is what the operator reads."""


def cannot_listen(
    error: OSError, address: str, serving: str, settings: str
) -> SettingsError | StartupError:
    """A server's failure to listen on `address`, as the operator's one line naming the
    `settings`: SettingsError when they must change, StartupError when another process is
    in the way."""
    reason = {
        errno.EADDRINUSE: "the port is in use by another process",
        errno.EADDRNOTAVAIL: "the address is not one of this machine's",
        errno.EACCES: "a port under 1024 needs privileges",
    }.get(error.errno or 0, error.strerror or str(error))
    line = f"cannot listen on {address} for {serving}: {reason} ({settings})"
    return StartupError(line) if error.errno == errno.EADDRINUSE else SettingsError(line)


def _split_list(value: Any) -> Any:
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


WEBHOOK_SECRET = re.compile(r"[A-Za-z0-9_-]{1,256}")  # what Telegram accepts as secret_token
LISTEN = re.compile(r"(?P<host>\[[0-9A-Fa-f:.]+\]|[^\s:\[\]]+):(?P<port>[0-9]{1,5})")


def _empty_is_unset(value: Any) -> Any:
    return None if isinstance(value, str) and not value.strip() else value


class TelegramSettings(Section):
    token: SecretStr | None = None
    api_url: str = "https://api.telegram.org/bot"
    # webhook mode: set, Telegram posts updates to this address (behind a reverse proxy that
    # passes them to webhook_listen); unset, paperbot run polls
    webhook_url: str | None = None
    webhook_listen: str = "127.0.0.1:8443"
    webhook_secret: SecretStr | None = Field(default=None, validate_default=True)
    # commands one user may send in a minute; past that, told once, then not answered (0: off)
    commands_per_minute: int = Field(default=20, ge=0)

    _unset = field_validator("webhook_url", "webhook_secret", mode="before")(_empty_is_unset)

    @property
    def file_url(self) -> str:
        """Where files sent to the bot are fetched from: beside the API, as Telegram's
        https://api.telegram.org/file/bot<token>/<path> is beside .../bot<token>/<method>."""
        base = self.api_url.rstrip("/")
        return base[: -len("/bot")] + "/file/bot" if base.endswith("/bot") else base + "/file/bot"

    @field_validator("webhook_url")
    @classmethod
    def _https_address(cls, url: str | None) -> str | None:
        if url is not None:
            parts = urlsplit(url)
            if parts.scheme != "https" or not parts.hostname:
                raise PydanticCustomError("webhook_url", "must be an https:// address with a host")
        return url

    @field_validator("webhook_listen")
    @classmethod
    def _host_and_port(cls, listen: str) -> str:
        found = LISTEN.fullmatch(listen.strip())
        if not found or not 1 <= int(found["port"]) <= 65535:
            raise PydanticCustomError("webhook_listen", "must be host:port, e.g. 127.0.0.1:8443")
        return listen.strip()

    @field_validator("webhook_secret")
    @classmethod
    def _telegram_secret(cls, secret: SecretStr | None, info: ValidationInfo) -> SecretStr | None:
        if secret is None:
            if info.data.get("webhook_url") is not None:
                raise PydanticCustomError(
                    "webhook_secret",
                    "required in webhook mode (PAPERBOT_TELEGRAM_WEBHOOK_URL is set): Telegram "
                    "sends it with every update and requests without it are refused; make one "
                    "with `openssl rand -hex 32`",
                )
        elif not WEBHOOK_SECRET.fullmatch(secret.get_secret_value()):
            raise PydanticCustomError(
                "webhook_secret",
                "must be 1-256 characters of A-Z, a-z, 0-9, _ and - (Telegram's rule)",
            )
        return secret

    @property
    def webhook_address(self) -> tuple[str, int]:
        """webhook_listen as (host, port); an IPv6 host without its brackets."""
        found = LISTEN.fullmatch(self.webhook_listen)
        assert found is not None  # validated
        return found["host"].strip("[]"), int(found["port"])


class DatabaseSettings(Section):
    url: str = "sqlite:///data/paperbot.db"
    # Each SQLite connection's page cache, in MB (SQLite takes it only as it is used). With
    # SQLite's own 2 MB, planning a busy day spills the ledger's half-written index pages to the
    # WAL again and again (docs/PERFORMANCE.md, "Why the store is shaped so").
    sqlite_cache_mb: int = Field(default=64, ge=2, le=65536)
    # PostgreSQL: `run` and `worker` create or upgrade the schema themselves when on; off, only
    # `paperbot db upgrade` does, the step an operator takes (and backs up before). SQLite, one
    # process's own file, is always upgraded on first use.
    auto_upgrade: bool = False

    @field_validator("url")
    @classmethod
    def _sqlite_names_a_file(cls, url: str) -> str:
        """sqlite:///, sqlite:// and sqlite:///:memory: are databases in memory: one for each
        connection, gone when the process ends, so the bot would keep nothing."""
        scheme, _, rest = url.partition("://")
        path = rest.partition("?")[0]
        if scheme.split("+")[0].strip().lower() == "sqlite" and path in ("", "/", "/:memory:"):
            raise PydanticCustomError(
                "database_url",
                "a SQLite database in memory keeps nothing: name a file, like "
                "sqlite:///data/paperbot.db (relative) or sqlite:////var/lib/paperbot/bot.db",
            )
        return url

    @field_validator("url")
    @classmethod
    def _postgresql_names_a_database(cls, url: str) -> str:
        """Without a name, PostgreSQL connects to the one named like the user (`postgres`, most
        often) and the bot would write its tables there."""
        scheme, _, rest = url.partition("://")
        path = rest.partition("?")[0].partition("/")[2]
        if scheme.split("+")[0].strip().lower() in ("postgresql", "postgres") and not path.strip():
            raise PydanticCustomError(
                "database_url",
                "a PostgreSQL address must name its database, like "
                "postgresql+psycopg://paperbot@db:5432/paperbot",
            )
        return url


class InboxSettings(Section):
    dir: Path = Path("seeds")
    scan_seconds: float = Field(default=60, gt=0)
    settle_seconds: float = Field(default=5, ge=0)
    # the largest listing file or feed read (a day's arXiv mailing is about 2 MB): a bigger one is
    # refused with its size named, never read into memory
    max_bytes: int = Field(default=50_000_000, ge=10_000)


class FeedsSettings(Section):
    urls: Annotated[list[str], NoDecode] = []
    poll_seconds: float = Field(default=1800, gt=0)

    _split = field_validator("urls", mode="before")(_split_list)


def _ipv6_or_no_colon(host: str) -> bool:
    """`::` and `::1` are addresses; `127.0.0.1:9100` is a port too many."""
    if ":" not in host:
        return True
    try:
        return ipaddress.ip_address(host).version == 6
    except ValueError:
        return False


class MetricsSettings(Section):
    port: int = Field(default=0, ge=0, le=65535)
    # the address /metrics and /healthz listen on: this machine only, unless opened on purpose
    # (0.0.0.0 in a container, whose port is published to the host's 127.0.0.1)
    host: str = "127.0.0.1"
    # /healthz refuses (503, saying why) when a delivery has waited longer than this many seconds
    # past its time (bot/service/backlog.py says when a row is late); 0: never
    max_waiting_seconds: float = Field(default=900, ge=0)

    @field_validator("host")
    @classmethod
    def _one_address(cls, host: str) -> str:
        host = host.strip().removeprefix("[").removesuffix("]")
        if not host or any(c.isspace() or c in "/[]" for c in host) or not _ipv6_or_no_colon(host):
            raise PydanticCustomError(
                "metrics_host", "must be one address or host name, like 127.0.0.1 or 0.0.0.0"
            )
        return host


class DeliverySettings(Section):
    # several processes on one PostgreSQL: a chat claimed by a process that stopped renewing
    # (killed) is free after this many seconds; its holder renews three times as often
    lease_seconds: float = Field(default=60, ge=3)
    # ledger rows sent more than this many days ago (failed rows: planned that long ago) are
    # deleted, hourly; their messages' buttons then answer that the message is out of date.
    # 0: kept for ever
    keep_days: int = Field(default=30, ge=0, le=36500)


class RankingSettings(Section):
    window: int = Field(default=4000, ge=100)  # papers the TF-IDF vocabulary is fitted on
    similar_share: float = Field(default=0.01, gt=0, le=0.5)  # of a day a "like:" filter passes
    # the semantic extra's embedding beside TF-IDF: auto (when installed), on (insist), off
    semantic: Literal["auto", "on", "off"] = "auto"


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


LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR"]
LogFormat = Literal["text", "json"]


def _any_case(value: Any, info: ValidationInfo) -> Any:
    """The choice the value names, in any case; anything else left for the type to refuse
    (naming the value as given)."""
    choices = get_args(LogLevel if info.field_name == "level" else LogFormat)
    if isinstance(value, str):
        for choice in choices:
            if value.strip().lower() == choice.lower():
                return choice
    return value


class LogSettings(Section):
    # the least severe records written; `paperbot -v` is DEBUG whatever this says
    level: LogLevel = "INFO"
    # text: one line of words a record; json: one JSON object a record (for a log collector)
    format: LogFormat = "text"

    _choice = field_validator("level", "format", mode="before")(_any_case)


class MemorySettings(Section):
    settle_after: int = Field(default=10_000, ge=0)  # filters gained before settling; 0: never
    huge_pages: bool = True  # settling also moves the heap to transparent huge pages (Linux)
    # objects made (and not yet freed) before the cycle collector looks at the young ones;
    # Python's own is 700; 0 keeps it (bot/runtime.py, MemoryPolicy)
    young_collection: int = Field(default=10_000, ge=0)


# The settings a file may hold instead, named by PAPERBOT_<SECTION>_<KEY>_FILE: how Docker
# secrets and systemd credentials hand a secret over (a file, not the environment, which
# `docker inspect` and /proc/PID/environ show).
SECRET_FILES = {
    "PAPERBOT_TELEGRAM_TOKEN_FILE": ("telegram", "token"),
    "PAPERBOT_DATABASE_URL_FILE": ("database", "url"),
}


class SecretFiles(PydanticBaseSettingsSource):
    """Each secret setting read from the file its `_FILE` variable names, the trailing newline
    that editors and `echo` add left out."""

    def __call__(self) -> dict[str, Any]:
        found: dict[str, dict[str, str]] = {}
        for file_variable, (section, key) in SECRET_FILES.items():
            variable = file_variable.removesuffix("_FILE")
            path = os.environ.get(file_variable, "").strip()
            if not path:
                continue
            if os.environ.get(variable, "").strip():
                raise SettingsError(f"{variable} and {variable}_FILE are both set: keep one")
            try:
                value = Path(path).read_text(encoding="utf-8").rstrip("\r\n")
            except (OSError, UnicodeDecodeError) as error:
                reason = getattr(error, "strerror", None) or "not UTF-8 text"
                raise SettingsError(f"{variable}_FILE: cannot read {path}: {reason}") from None
            found.setdefault(section, {})[key] = value
        return found

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False  # all is read in __call__


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
    log: LogSettings = LogSettings()

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml_path = config_file()
        if isinstance(env_settings, EnvSettingsSource):  # the _FILE variables are not settings
            files = {name.lower() for name in SECRET_FILES}
            env_settings.env_vars = {
                name: value
                for name, value in env_settings.env_vars.items()
                if name.lower() not in files
            }
        return (
            init_settings,
            SecretFiles(settings_cls),
            env_settings,
            TomlConfigSettingsSource(settings_cls, toml_path),
        )

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
    secret = location[-1] in ("token", "webhook_secret")  # never echoed, even when malformed
    if isinstance(value, str):
        value = masked_urls(value)
    shown = "" if isinstance(value, dict) or secret else f" (got {value!r})"
    if error["type"] == "extra_forbidden":
        return f"unknown setting {name}{shown}: check the spelling against config/paperbot.toml"
    return f"setting {name} ({variable}): {error['msg']}{shown}"


def load_settings() -> Settings:
    config = os.environ.get("PAPERBOT_CONFIG")
    if config and not Path(config).is_file():
        raise SettingsError(f"PAPERBOT_CONFIG names {config!r}, which is not a file")
    try:
        return Settings()
    except SettingsError:  # a secret's file: already one line
        raise
    except ValidationError as error:
        raise SettingsError("; ".join(_describe(e) for e in error.errors())) from None
    except (ValueError, OSError) as error:  # a TOML syntax error, say
        raise SettingsError(f"cannot read the settings: {error}") from None
