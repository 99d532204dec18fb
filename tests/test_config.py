from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import SettingsError, load_settings


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import os

    for name in list(os.environ):
        if name.startswith("PAPERBOT_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


def test_defaults_without_any_file() -> None:
    settings = load_settings()
    assert settings.inbox.dir == Path("seeds") and settings.inbox.scan_seconds == 60
    assert settings.database.url == "sqlite:///data/paperbot.db"
    assert settings.telegram.api_url == "https://api.telegram.org/bot"


def test_environment_overrides_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "paperbot.toml"
    config.write_text(
        '[inbox]\nscan_seconds = 30\ndir = "listings"\n[feeds]\nurls = ["http://a"]\n'
    )
    monkeypatch.setenv("PAPERBOT_CONFIG", str(config))
    monkeypatch.setenv("PAPERBOT_INBOX_SCAN_SECONDS", "15")
    monkeypatch.setenv("PAPERBOT_ADMIN_CHAT_IDS", "1, 22")
    settings = load_settings()
    assert settings.inbox.scan_seconds == 15 and settings.inbox.dir == Path("listings")
    assert settings.feeds.urls == ["http://a"] and settings.admin.chat_ids == [1, 22]


@pytest.mark.parametrize(
    ("level", "format", "taken"),
    [("debug", "JSON", ("DEBUG", "json")), (" Warning ", "text", ("WARNING", "text"))],
)
def test_the_log_settings_in_any_case(
    monkeypatch: pytest.MonkeyPatch, level: str, format: str, taken: tuple[str, str]
) -> None:
    monkeypatch.setenv("PAPERBOT_LOG_LEVEL", level)
    monkeypatch.setenv("PAPERBOT_LOG_FORMAT", format)
    settings = load_settings()
    assert (settings.log.level, settings.log.format) == taken


def test_the_log_settings_from_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert (load_settings().log.level, load_settings().log.format) == ("INFO", "text")
    config = tmp_path / "paperbot.toml"
    config.write_text('[log]\nlevel = "error"\nformat = "json"\n')
    monkeypatch.setenv("PAPERBOT_CONFIG", str(config))
    assert (load_settings().log.level, load_settings().log.format) == ("ERROR", "json")


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        (
            "PAPERBOT_INBOX_SCAN_SECONDS",
            "-5",
            "setting inbox.scan_seconds (PAPERBOT_INBOX_SCAN_SECONDS)",
        ),
        ("PAPERBOT_ADMIN_CHAT_IDS", "1,x", "setting admin.chat_ids (PAPERBOT_ADMIN_CHAT_IDS)"),
        ("PAPERBOT_METRICS_PORT", "70000", "setting metrics.port (PAPERBOT_METRICS_PORT)"),
        (
            "PAPERBOT_METRICS_HOST",
            "127.0.0.1:9100",
            "setting metrics.host (PAPERBOT_METRICS_HOST): must be one address or host name, "
            "like 127.0.0.1 or 0.0.0.0 (got '127.0.0.1:9100')",
        ),
        (
            "PAPERBOT_DATABASE_SQLITE_CACHE_MB",
            "1",
            "setting database.sqlite_cache_mb (PAPERBOT_DATABASE_SQLITE_CACHE_MB)",
        ),
        ("PAPERBOT_CONFIG", "/nonexistent.toml", "PAPERBOT_CONFIG names '/nonexistent.toml'"),
        (
            "PAPERBOT_LOG_LEVEL",
            "loud",
            "setting log.level (PAPERBOT_LOG_LEVEL): Input should be 'DEBUG', 'INFO', 'WARNING' "
            "or 'ERROR' (got 'loud')",
        ),
        (
            "PAPERBOT_LOG_FORMAT",
            "xml",
            "setting log.format (PAPERBOT_LOG_FORMAT): Input should be 'text' or 'json' "
            "(got 'xml')",
        ),
        *[
            (
                "PAPERBOT_DATABASE_URL",
                url,
                "setting database.url (PAPERBOT_DATABASE_URL): a SQLite database in memory keeps "
                f"nothing: name a file, like sqlite:///data/paperbot.db (relative) or "
                f"sqlite:////var/lib/paperbot/bot.db (got '{url}')",
            )
            for url in ("sqlite:///", "sqlite://", "sqlite:///:memory:", "SQLite+pysqlite:///")
        ],
        *[
            (
                "PAPERBOT_DATABASE_URL",
                url,
                "setting database.url (PAPERBOT_DATABASE_URL): a PostgreSQL address must name its "
                "database, like postgresql+psycopg://paperbot@db:5432/paperbot "
                f"(got '{shown}')",
            )
            for url, shown in (
                ("postgresql+psycopg://postgres@127.0.0.1:5432", None),
                ("postgresql+psycopg://postgres@127.0.0.1:5432/", None),
                ("postgresql://db?sslmode=require", None),
                ("postgres://bot:s3cret@db/", "postgres://bot:***@db/"),
            )
            for shown in [shown or url]
        ],
    ],
)
def test_a_wrong_value_is_one_line_naming_the_setting(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, message: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(SettingsError) as error:
        load_settings()
    assert message in str(error.value) and "\n" not in str(error.value)


@pytest.mark.parametrize(
    "url",
    [
        "sqlite:///data/paperbot.db",
        "sqlite:////srv/bot.db",
        "postgresql://db/papers",
        "postgresql+psycopg://bot:pw@127.0.0.1:5432/papers?sslmode=require",
    ],
)
def test_a_database_url_naming_a_database_is_taken(
    monkeypatch: pytest.MonkeyPatch, url: str
) -> None:
    monkeypatch.setenv("PAPERBOT_DATABASE_URL", url)
    assert load_settings().database.url == url


def test_unknown_key_in_the_file_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "paperbot.toml"
    config.write_text("[inbox]\nscan_secs = 30\n")
    monkeypatch.setenv("PAPERBOT_CONFIG", str(config))
    with pytest.raises(SettingsError, match="unknown setting inbox.scan_secs"):
        load_settings()


def test_broken_toml_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "paperbot.toml"
    config.write_text("[inbox\n")
    monkeypatch.setenv("PAPERBOT_CONFIG", str(config))
    with pytest.raises(SettingsError, match="cannot read the settings"):
        load_settings()


def test_missing_token_names_the_variable() -> None:
    with pytest.raises(SettingsError, match="PAPERBOT_TELEGRAM_TOKEN"):
        load_settings().require_token()


def test_secrets_from_files_as_docker_and_systemd_give_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "token").write_text("123:FROM-A-FILE\n")
    (tmp_path / "url").write_text("postgresql://ada:s3cret@db/paperbot\r\n")
    monkeypatch.setenv("PAPERBOT_TELEGRAM_TOKEN_FILE", str(tmp_path / "token"))
    monkeypatch.setenv("PAPERBOT_DATABASE_URL_FILE", str(tmp_path / "url"))
    monkeypatch.setenv("PAPERBOT_TELEGRAM_TOKEN", "")  # the example env file's empty line
    settings = load_settings()
    assert settings.require_token() == "123:FROM-A-FILE"
    assert settings.database.url == "postgresql://ada:s3cret@db/paperbot"


@pytest.mark.parametrize(
    ("variables", "message"),
    [
        (
            {"PAPERBOT_TELEGRAM_TOKEN_FILE": "token", "PAPERBOT_TELEGRAM_TOKEN": "1:x"},
            "PAPERBOT_TELEGRAM_TOKEN and PAPERBOT_TELEGRAM_TOKEN_FILE are both set: keep one",
        ),
        (
            {"PAPERBOT_DATABASE_URL_FILE": "url", "PAPERBOT_DATABASE_URL": "sqlite:///a.db"},
            "PAPERBOT_DATABASE_URL and PAPERBOT_DATABASE_URL_FILE are both set: keep one",
        ),
        (
            {"PAPERBOT_TELEGRAM_TOKEN_FILE": "missing"},
            "PAPERBOT_TELEGRAM_TOKEN_FILE: cannot read missing: No such file or directory",
        ),
        (
            {"PAPERBOT_DATABASE_URL_FILE": "binary"},
            "PAPERBOT_DATABASE_URL_FILE: cannot read binary: not UTF-8 text",
        ),
    ],
)
def test_a_secret_file_problem_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variables: dict[str, str], message: str
) -> None:
    (tmp_path / "token").write_text("1:y\n")
    (tmp_path / "url").write_text("sqlite:///b.db\n")
    (tmp_path / "binary").write_bytes(b"\xff\xfe")
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError) as error:
        load_settings()
    assert str(error.value) == message
