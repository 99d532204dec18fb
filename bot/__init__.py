"""paperbot: new papers that match what researchers follow, delivered to Telegram."""

__version__ = "0.1.0"
