"""paperbot: new papers that match what researchers follow, delivered to Telegram."""

from importlib.metadata import PackageNotFoundError, version

try:  # pyproject.toml's version, as installed: one number to bump, never a copy here
    __version__ = version("paperbot")
except PackageNotFoundError:  # a source tree on the path that was never installed
    __version__ = "0+unknown"
