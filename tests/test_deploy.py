"""The deployment files say what the code does (images can't be pulled here, so this keeps them
honest): every PAPERBOT_* they name is a setting, every `paperbot ...` they run is a command,
compose parses and is wired as documented, the Dockerfile copies what exists, the systemd units
are hardened, the env example names every setting with its default. And `paperbot db backup`."""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import subprocess
import sys
import tomllib
from contextlib import closing
from fnmatch import fnmatch
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from bot.cli import EXIT_SCHEMA_AHEAD, EXIT_USAGE, _parser
from bot.config import Settings
from bot.store import Database
from tests.conftest import ROOT
from tests.test_cli import paperbot

DEPLOY = ROOT / "deploy"
GUIDE = ROOT / "docs" / "DEPLOY.md"
DOCUMENTS = sorted(p for p in DEPLOY.iterdir() if p.is_file()) + [GUIDE]

# Named by the deployment files before the code has them: none now. A setting documented ahead
# of its code goes here, with a strict xfail mark on test_pending_settings_exist until it exists.
PENDING_SETTINGS: set[str] = set()
PENDING_COMMANDS: set[str] = set()
# read by bot/config.py itself: the settings file's path, and the files secrets may come from
OTHER_VARIABLES = {"PAPERBOT_CONFIG", "PAPERBOT_TELEGRAM_TOKEN_FILE", "PAPERBOT_DATABASE_URL_FILE"}
# set by the image, not by an operator: the commit it was built from, read by bot/metrics.py
BUILD_VARIABLES = {"PAPERBOT_BUILD_COMMIT"}
# the secrets deploy/ hands over as files (Docker secrets, systemd credentials), by name
SECRETS = {"telegram_token": "PAPERBOT_TELEGRAM_TOKEN", "database_url": "PAPERBOT_DATABASE_URL"}


def settings() -> dict[str, Any]:
    """Every setting as its environment variable, with its default, from the Settings model."""
    found = {}
    for section_name, section in Settings.model_fields.items():
        model = section.annotation
        assert isinstance(model, type)
        for key, field in model.model_fields.items():  # type: ignore[attr-defined]
            found[f"PAPERBOT_{section_name}_{key}".upper()] = field.get_default(
                call_default_factory=True
            )
    return found


def commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The parser's subcommands by name."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def code(path: Path) -> str:
    """What is run or set, not prose: a Markdown file's code spans and blocks; in the other
    files every line without its comment, plus a comment's `code spans`."""
    text = path.read_text()
    if path.suffix == ".md":
        blocks = re.findall(r"^```\w*\n(.*?)^```", text, re.M | re.S)
        spans = re.findall(r"`([^`\n]+)`", re.sub(r"^```.*?^```", "", text, flags=re.M | re.S))
        return "\n".join(blocks + spans)
    lines = []
    for line in text.splitlines():
        content, _, comment = (
            line.partition("#") if line.lstrip().startswith("#") else (line, "", "")
        )
        lines += [content, *re.findall(r"`([^`]+)`", comment)]
    return "\n".join(lines)


def json_commands(text: str) -> str:
    """Exec-form commands (`["paperbot", "db", "upgrade"]`) as the words they run."""
    return re.sub(
        r'\[\s*"[^"\]]*"(?:\s*,\s*"[^"\]]*")*\s*\]', lambda m: " ".join(json.loads(m[0])), text
    )


# `paperbot` as a program (also bin/paperbot and the deploy/paperbot-admin wrapper), not the
# user (`-u paperbot`, `StateDirectory=paperbot`), a folder or a unit name.
COMMAND = re.compile(
    r"(?<![\w.@=:-])(?<!-u )paperbot(?:-admin)?[ \t]+([a-z][\w-]*)(?:[ \t]+([a-z][\w-]*))?"
)


def commands_run() -> list[tuple[str, tuple[str, ...]]]:
    """(file, words) for each `paperbot WORD [WORD]` the documents run."""
    found = []
    for path in DOCUMENTS:
        for match in COMMAND.finditer(json_commands(code(path))):
            found.append((path.name, tuple(w for w in match.groups() if w)))
    return found


def unknown_command(words: tuple[str, ...]) -> str | None:
    """Why the parser would refuse these words, or None."""
    known = commands(_parser())
    if words[0] not in known:
        return f"no command {words[0]!r}"
    actions = commands(known[words[0]])
    if actions and (len(words) < 2 or words[1] not in actions):
        return f"no action {' '.join(words)!r} (there are {', '.join(actions)})"
    return None


def variables_named() -> set[tuple[str, str]]:
    return {
        (path.name, name)
        for path in DOCUMENTS
        for name in re.findall(r"\bPAPERBOT_[A-Z0-9_]*[A-Z0-9]\b", path.read_text())
    }


def test_every_data_file_of_the_package_ships_in_its_wheel() -> None:
    """A file under bot/ that is not a module is installed only when pyproject's package-data
    names it: without it, `pip install .` gives a bot that cannot read its category list."""
    shipped = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    patterns = [
        (ROOT / package.replace(".", "/"), pattern)
        for package, listed in shipped["package-data"].items()
        for pattern in listed
    ]
    data = [p for p in (ROOT / "bot").rglob("*") if p.is_file() and p.suffix not in (".py", ".pyc")]
    assert data
    for path in data:
        assert any(
            path.is_relative_to(folder) and fnmatch(str(path.relative_to(folder)), pattern)
            for folder, pattern in patterns
        ), f"{path.relative_to(ROOT)} is not in pyproject's package-data"


def test_every_variable_named_is_a_setting() -> None:
    real = set(settings()) | OTHER_VARIABLES | BUILD_VARIABLES | PENDING_SETTINGS
    unknown = sorted(f"{name} in {file}" for file, name in variables_named() if name not in real)
    assert not unknown, "not a setting of bot/config.py: " + "; ".join(unknown)


def test_pending_settings_exist() -> None:
    missing = PENDING_SETTINGS - set(settings())
    assert not missing, f"not settings yet: {sorted(missing)}"


def test_other_variables_are_read_by_the_settings() -> None:
    source = (ROOT / "bot" / "config.py").read_text()
    assert all(f'"{name}"' in source for name in OTHER_VARIABLES)
    source = (ROOT / "bot" / "metrics.py").read_text()
    assert all(f'"{name}"' in source for name in BUILD_VARIABLES)


def test_every_command_run_is_a_command() -> None:
    found = commands_run()
    assert {words[0] for _, words in found} >= {"run", "db", "worker"}
    wrong = [
        f"paperbot {' '.join(words)} in {file}: {problem}"
        for file, words in found
        if words[0] not in PENDING_COMMANDS and (problem := unknown_command(words))
    ]
    assert not wrong, "; ".join(wrong)


# -- compose --------------------------------------------------------------------------------------

Line = tuple[int, str]


def parse_yaml(text: str) -> Any:
    """The YAML subset compose.yaml is written in (PyYAML is not a dependency): block mappings
    and sequences, plain, quoted and flow-list scalars, comments, `&anchor`, `*alias` and the
    `<<` merge key. Anything else is an error rather than a guess."""
    lines: list[Line] = []
    for raw in text.splitlines():
        content = re.sub(r"(^|\s)#.*$", "", raw).rstrip()
        if content.strip():
            lines.append((len(content) - len(content.lstrip()), content.strip()))
    anchors: dict[str, Any] = {}
    value, end = _yaml_block(lines, 0, 0, anchors)
    assert end == len(lines), f"cannot read line: {lines[end][1]!r}"
    return value


def _yaml_block(lines: list[Line], start: int, indent: int, anchors: dict[str, Any]) -> Any:
    if lines[start][1].startswith("- "):
        items, i = [], start
        while i < len(lines) and lines[i][0] == indent and lines[i][1].startswith("- "):
            items.append(_yaml_scalar(lines[i][1][2:], anchors))
            i += 1
        return items, i
    mapping: dict[str, Any] = {}
    i = start
    while i < len(lines) and lines[i][0] == indent:
        match = re.fullmatch(r'("[^"]*"|[\w.<-]+):(?:\s+(.*))?', lines[i][1])
        assert match, f"cannot read line: {lines[i][1]!r}"
        key, rest = match[1].strip('"'), match[2] or ""
        i += 1
        anchor = re.fullmatch(r"&(\w[\w-]*)", rest)
        if (not rest or anchor) and i < len(lines) and lines[i][0] > indent:
            value, i = _yaml_block(lines, i, lines[i][0], anchors)
            if anchor:
                anchors[anchor[1]] = value
        else:
            value = _yaml_scalar(rest, anchors) if rest else None
        if key == "<<":
            mapping = {**value, **mapping}
        else:
            mapping[key] = value
    return mapping, i


def _yaml_scalar(text: str, anchors: dict[str, Any]) -> Any:
    if text.startswith("*"):
        return anchors[text[1:]]
    if text.startswith(("[", '"')):
        return json.loads(text)
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    if text in ("true", "false"):
        return text == "true"
    assert not text.startswith(("{", "'", "&", "|", ">")), f"not in the subset: {text!r}"
    return text


def compose() -> dict[str, Any]:
    parsed: dict[str, Any] = parse_yaml((DEPLOY / "compose.yaml").read_text())
    return parsed


def test_compose_runs_postgres_then_migrations_then_the_bot_and_workers() -> None:
    document = compose()
    services = document["services"]
    assert set(services) == {"postgres", "migrate", "bot", "worker"}
    postgres = services["postgres"]
    assert postgres["image"].startswith("postgres:16")
    volume = postgres["volumes"][0].split(":")[0]
    assert volume in document["volumes"], "PostgreSQL's data is in a named volume"
    assert "pg_isready" in " ".join(postgres["healthcheck"]["test"])
    runs = {"migrate": "paperbot db upgrade", "bot": "paperbot run", "worker": "paperbot worker"}
    for name, command in runs.items():
        service = services[name]
        assert " ".join(service["command"]) == command
        assert service["build"] == {
            "context": "..",
            "dockerfile": "deploy/Dockerfile",
            "args": {"PAPERBOT_BUILD_COMMIT": "${PAPERBOT_BUILD_COMMIT:-}"},
        }
        assert service["env_file"] == "paperbot.env"
        assert any(v.endswith(":/var/lib/paperbot/inbox") for v in service["volumes"])
        assert service["depends_on"]["postgres"] == {"condition": "service_healthy"}
    assert services["migrate"]["restart"] == "no"
    assert "migrate" not in services["migrate"]["depends_on"]
    for name in ("bot", "worker"):
        wait = services[name]["depends_on"]["migrate"]
        assert wait == {"condition": "service_completed_successfully"}
    assert services["worker"]["deploy"]["replicas"].startswith("${WORKERS")
    assert services["bot"]["ports"] == ["127.0.0.1:9100:9100"]  # the host's loopback only
    for name in ("bot", "worker"):  # paperbot.env's value would make the published port dead
        assert services[name]["environment"]["PAPERBOT_METRICS_HOST"] == "0.0.0.0"


def test_compose_hands_the_secrets_over_as_files() -> None:
    """Docker secrets, mounted at /run/secrets/NAME: no secret in any service's environment
    (`docker inspect` shows it), the files kept out of git and of the image's build context."""
    document = compose()
    files = {name: secret["file"] for name, secret in document["secrets"].items()}
    assert files == {name: f"./secrets/{name}" for name in [*SECRETS, "postgres_password"]}
    ignored = (ROOT / ".gitignore").read_text().splitlines()
    assert "deploy/secrets/" in ignored and all(
        dockerignored(f"deploy/{f}") for f in files.values()
    )
    services = document["services"]
    for name in ("migrate", "bot", "worker"):
        assert services[name]["secrets"] == list(SECRETS)
        assert {
            variable: services[name]["environment"][f"{variable}_FILE"]
            for variable in SECRETS.values()
        } == {variable: f"/run/secrets/{secret}" for secret, variable in SECRETS.items()}
    postgres = services["postgres"]
    assert postgres["secrets"] == ["postgres_password"]
    assert postgres["environment"]["POSTGRES_PASSWORD_FILE"] == "/run/secrets/postgres_password"
    given = {name for service in services.values() for name in service.get("environment", {})}
    assert not given & {*SECRETS.values(), "POSTGRES_PASSWORD"}


def test_compose_agrees_with_pyyaml_where_it_is_installed() -> None:
    yaml = pytest.importorskip("yaml", reason="PyYAML is not installed (not a dependency)")
    text = (DEPLOY / "compose.yaml").read_text()
    assert yaml.safe_load(text) == parse_yaml(text)


def test_compose_builds_from_the_repository_root() -> None:
    for service in compose()["services"].values():
        if "build" in service:
            assert (DEPLOY / service["build"]["context"]).resolve() == ROOT
            assert (ROOT / service["build"]["dockerfile"]).is_file()


# -- the image ------------------------------------------------------------------------------------

DOCKERFILE = (DEPLOY / "Dockerfile").read_text()


def dockerfile_instructions() -> list[tuple[str, str]]:
    joined = re.sub(r"\\\n", " ", DOCKERFILE)
    return [
        (line.split(None, 1)[0].upper(), line.split(None, 1)[1])
        for line in joined.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]


def dockerignored(path: str) -> bool:
    """Whether the repository's .dockerignore keeps a path out of the build context, as Docker
    reads it: the patterns in order, the last that matches the path or a folder above it wins,
    `!` lets a path back in, `*` stays within a folder and `**` crosses folders."""
    parts = path.split("/")
    paths = ["/".join(parts[:end]) for end in range(1, len(parts) + 1)]
    ignored = False
    for pattern in (ROOT / ".dockerignore").read_text().splitlines():
        pattern = pattern.strip()
        if not pattern or pattern.startswith("#"):
            continue
        negated = pattern.startswith("!")
        words = re.split(r"(\*\*/|\*\*|\*|\?)", pattern.lstrip("!").rstrip("/"))
        wildcards = {"**/": "(?:.*/)?", "**": ".*", "*": "[^/]*", "?": "[^/]"}
        regex = "".join(wildcards.get(word, re.escape(word)) for word in words)
        if any(re.fullmatch(regex, candidate) for candidate in paths):
            ignored = not negated
    return ignored


def test_what_the_dockerfile_copies_exists_and_is_in_the_build_context() -> None:
    copied = []
    for instruction, arguments in dockerfile_instructions():
        if instruction in ("COPY", "ADD"):
            words = [w for w in arguments.split() if not w.startswith("--")]
            copied += words[:-1]
    assert {"pyproject.toml", "bot", "deploy/requirements.lock"} <= set(copied)
    for source in copied:
        assert (ROOT / source).exists(), f"COPY {source}: no such file in the repository"
        assert not dockerignored(source), f"COPY {source}: left out by .dockerignore"
    kept_out = [".venv", "data", "deploy", "deploy/paperbot.env", "deploy/telegram_token"]
    assert all(dockerignored(path) for path in kept_out)
    assert not dockerignored("bot/core/filters.py") and dockerignored("bot/__pycache__/x.pyc")


def test_the_image_runs_the_bot_as_a_user_with_a_health_check() -> None:
    instructions = dict(dockerfile_instructions())
    instructions["ENV"] = " ".join(a for i, a in dockerfile_instructions() if i == "ENV")
    assert re.match(r"python:3\.1[1-9]\.\d+-slim", instructions["FROM"])  # see the next test
    assert instructions["USER"] not in ("root", "0")
    assert json.loads(instructions["CMD"]) == ["paperbot", "run"]
    check = instructions["HEALTHCHECK"]
    assert "urllib.request" in check and "/healthz" in check and "PAPERBOT_METRICS_PORT" in check
    environment = dict(re.findall(r"(PAPERBOT_\w+)=(\S+)", instructions["ENV"]))
    volumes = json.loads(instructions["VOLUME"])
    data = Database.folder(environment["PAPERBOT_DATABASE_URL"])
    assert sorted(volumes) == sorted([str(data), environment["PAPERBOT_INBOX_DIR"]])
    # a published port reaches the container's own address, never its 127.0.0.1 (the default)
    assert environment["PAPERBOT_METRICS_HOST"] == "0.0.0.0"
    assert settings()["PAPERBOT_METRICS_HOST"] == "127.0.0.1"


# -- the lock file ---------------------------------------------------------------------------------

LOCK = DEPLOY / "requirements.lock"
# an exact release (no floating `python:3.12-slim`), optionally its digest too
BASE_IMAGE = re.compile(r"python:(3\.1[1-9]\.\d+)-slim-[a-z]+(@sha256:[0-9a-f]{64})?")


def locked() -> dict[str, tuple[str, list[str]]]:
    """The lock's packages: normalized name -> (version, sha256 hashes)."""
    text = re.sub(r"\\\n", " ", LOCK.read_text())
    found = {}
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            requirement, *options = line.split()
            name, _, version = requirement.partition("==")
            hashes = re.findall(r"--hash=sha256:([0-9a-f]{64})\b", " ".join(options))
            found[canonicalize_name(name)] = (version, hashes)
    return found


def runtime_requirements() -> list[Requirement]:
    """pyproject's dependencies, and those of the extras they name (python-telegram-bot's job
    queue and webhooks), as the installed packages' metadata lists them."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    direct = [Requirement(line) for line in project["dependencies"]]
    found = list(direct)
    for requirement in direct:
        for line in metadata.requires(requirement.name) or []:
            nested = Requirement(line)
            wanted = [{"extra": extra} for extra in requirement.extras]
            if nested.marker and any(nested.marker.evaluate(env) for env in wanted):
                found.append(nested)
    return found


def test_the_image_is_an_exact_python_release_and_installs_the_lock_with_hashes() -> None:
    instructions = dockerfile_instructions()
    base = BASE_IMAGE.fullmatch(dict(instructions)["FROM"])
    assert base, "FROM names an exact release, python:3.12.N-slim-DEBIAN"
    header = LOCK.read_text().split("\n", 2)[1]
    assert re.search(r"uv pip compile pyproject\.toml --generate-hashes\b", header)
    assert f"--python-version {base[1]} " in header, "the lock is for the image's Python"
    installs = [arguments.split() for i, arguments in instructions if "pip install" in arguments]
    assert installs[0][2:] == [
        "--require-hashes", "--no-deps", "--only-binary=:all:", "-r", "requirements.lock"
    ]  # fmt: skip
    assert ("COPY", "deploy/requirements.lock ./") in instructions
    assert installs[1][:4] == ["pip", "install", "--no-deps", "."] and len(installs) == 2


def test_the_lock_pins_every_runtime_dependency_in_its_range_with_hashes() -> None:
    lock = locked()
    assert len(lock) >= 30
    for name, (version, hashes) in lock.items():
        assert re.fullmatch(r"\d[\w.+!-]*", version), f"{name}: no exact version"
        assert hashes, f"{name}=={version}: no --hash=sha256"
    for requirement in runtime_requirements():
        name = canonicalize_name(requirement.name)
        assert name in lock, f"{requirement}: not in deploy/requirements.lock (regenerate it)"
        version = lock[name][0]
        assert requirement.specifier.contains(version, prereleases=True), f"{name}=={version}"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = [Requirement(line).name for lines in project["optional-dependencies"].values()
              for line in lines]  # fmt: skip
    assert not {canonicalize_name(name) for name in extras} & set(lock), "the image has no extra"


# -- systemd --------------------------------------------------------------------------------------

HARDENING = {
    "NoNewPrivileges": "yes",
    "ProtectSystem": "strict",
    "ProtectHome": "yes",
    "PrivateTmp": "yes",
    "PrivateDevices": "yes",
    "Restart": "on-failure",
    "CapabilityBoundingSet": "",
}


def unit(name: str) -> dict[str, list[str]]:
    """A unit's [Service] settings, each key with all its values (systemd allows repeats)."""
    section, found = "", {}
    for line in (DEPLOY / name).read_text().splitlines():
        if line.startswith("["):
            section = line
        elif section == "[Service]" and "=" in line and not line.startswith("#"):
            key, _, value = line.partition("=")
            found.setdefault(key, []).append(value)
    return found


def env_example() -> dict[str, tuple[bool, str]]:
    """The example's settings: name -> (commented out, value)."""
    text = (DEPLOY / "paperbot.env.example").read_text()
    return {
        name: (bool(hashed), value)
        for hashed, name, value in re.findall(r"^(# )?(PAPERBOT_\w+)=(.*)$", text, re.M)
    }


@pytest.mark.parametrize(
    ("name", "runs"), [("paperbot.service", "run"), ("paperbot-worker@.service", "worker")]
)
def test_systemd_units_are_hardened_and_run_paperbot(name: str, runs: str) -> None:
    service = unit(name)
    for key, value in HARDENING.items():
        assert service.get(key) == [value], f"{name}: {key}={value}"
    assert service["User"][0] not in ("root", "0")
    assert service["EnvironmentFile"] == ["/etc/paperbot/paperbot.env"]
    assert service["ExecStart"][0].endswith(f"/bin/paperbot {runs}")
    # a wrong setting, a schema to upgrade, a schema newer than the code: restarting fixes none
    kept_down = {int(code) for code in service["RestartPreventExitStatus"][0].split()}
    assert kept_down == {EXIT_USAGE, EXIT_SCHEMA_AHEAD} == {2, 3}
    writable = service["ReadWritePaths"][0].split()
    folder = Path(service["WorkingDirectory"][0])
    data = folder / str(Database.folder(str(settings()["PAPERBOT_DATABASE_URL"])))
    inbox = env_example()["PAPERBOT_INBOX_DIR"][1]
    assert sorted(writable) == sorted([str(data), inbox])


@pytest.mark.parametrize("name", ["paperbot.service", "paperbot-worker@.service"])
def test_systemd_units_hand_the_secrets_over_as_credentials(name: str) -> None:
    """Root's files, copied by systemd into the service's own credentials folder (%d)."""
    service = unit(name)
    loaded = dict(value.split(":", 1) for value in service["LoadCredential"])
    assert loaded == {secret: f"/etc/paperbot/{secret}" for secret in SECRETS}
    environment = dict(value.split("=", 1) for value in service["Environment"])
    assert environment == {f"{v}_FILE": f"%d/{secret}" for secret, v in SECRETS.items()}


def test_the_admin_wrapper_runs_paperbot_as_the_service_does() -> None:
    wrapper = (DEPLOY / "paperbot-admin").read_text()
    service = unit("paperbot.service")
    assert f"--uid={service['User'][0]}" in wrapper
    assert f"--working-directory={service['WorkingDirectory'][0]}" in wrapper
    assert f"EnvironmentFile={service['EnvironmentFile'][0]}" in wrapper
    assert all(f"LoadCredential={value}" in wrapper for value in service["LoadCredential"])
    assert service["ExecStart"][0].removesuffix(" run") + ' "$@"' in wrapper


def test_the_admin_wrapper_reads_the_secrets_where_systemd_puts_them(tmp_path: Path) -> None:
    """The wrapper's shell command, run as systemd would run it: the credentials folder in
    $CREDENTIALS_DIRECTORY, this checkout's paperbot in place of the venv's."""
    wrapper = (DEPLOY / "paperbot-admin").read_text()
    script = re.search(r"/bin/sh -c '(.*?)' paperbot \"\$@\"", wrapper, re.S)
    assert script, "the wrapper runs paperbot through /bin/sh -c"
    installed = unit("paperbot.service")["ExecStart"][0].removesuffix(" run")
    command = script[1].replace(installed, f'"{sys.executable}" -m bot')
    credentials = tmp_path / "credentials"
    credentials.mkdir()
    (credentials / "database_url").write_text(f"sqlite:///{tmp_path}/from-the-file.db\n")
    (credentials / "telegram_token").write_text("123456:from-the-file\n")
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PAPERBOT_")}
    environment |= {"CREDENTIALS_DIRECTORY": str(credentials), "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        ["sh", "-c", command, "paperbot", "status"],
        cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "from-the-file.db").is_file() and not (tmp_path / "data").exists()


# -- the env example ------------------------------------------------------------------------------


def shown(default: Any) -> str:
    """A default as an environment variable spells it."""
    if default is None:
        return ""
    if isinstance(default, bool):
        return str(default).lower()
    if isinstance(default, list):
        return ",".join(map(str, default))
    if isinstance(default, float) and default.is_integer():
        return str(int(default))
    return str(default)


def test_the_env_example_names_every_setting_with_its_default() -> None:
    example = env_example()
    text = (DEPLOY / "paperbot.env.example").read_text()
    for name, default in settings().items():
        assert name in example, f"{name} is not in deploy/paperbot.env.example"
        commented, value = example[name]
        if commented:
            assert value == shown(default), f"{name}: the example's default is not the code's"
        line = re.search(rf"^.*\n(# )?{name}=", text, re.M)
        assert line and line[0].startswith("# "), f"{name}: one comment line above it"
    for variable in SECRETS.values():  # files of their own, never in the env file
        assert example[variable][0], f"{variable} is set in the env example"


# -- paperbot db backup ---------------------------------------------------------------------------


def table_rows(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    with closing(sqlite3.connect(path)) as connection:
        tables = [
            row[0]
            for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        ]
        return {t: connection.execute(f'SELECT * FROM "{t}" ORDER BY 1').fetchall() for t in tables}


def test_db_backup_copies_a_running_sqlite_database_once(workdir: Path) -> None:
    assert paperbot(workdir, "ingest", "seeds/").returncode == 0
    live = workdir / "data" / "paperbot.db"
    writer = sqlite3.connect(live, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # a writer in the middle of its transaction
    writer.execute("DELETE FROM paper")
    copied = paperbot(workdir, "db", "backup", "backup.db")
    writer.execute("ROLLBACK")
    writer.close()
    assert copied.returncode == 0, copied.stderr
    assert copied.stdout == "database copied to backup.db\n"
    rows = table_rows(workdir / "backup.db")
    assert len(rows["paper"]) == 37
    assert rows == table_rows(live)

    again = paperbot(workdir, "db", "backup", "backup.db")
    assert again.returncode == 2
    assert again.stderr == "paperbot: backup.db exists: a backup never overwrites a file\n"
    assert table_rows(workdir / "backup.db") == rows


def test_db_backup_of_postgresql_names_pg_dump(workdir: Path) -> None:
    url = "postgresql://paperbot:s3cret@db.example.org:5433/papers"
    result = paperbot(workdir, "db", "backup", "x.dump", env={"PAPERBOT_DATABASE_URL": url})
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "s3cret" not in result.stderr
    assert result.stderr.endswith(
        "back it up with pg_dump, not paperbot: pg_dump --host=db.example.org --port=5433 "
        "--username=paperbot --format=custom --file=x.dump papers\n"
    )
    assert not (workdir / "x.dump").exists()
