import pytest

from bot.core.secrets import masked_urls


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("https://ada:s3cret@feeds.example/rss", "https://ada:***@feeds.example/rss"),
        ("postgresql://ada:s3cret@db:5432/paperbot", "postgresql://ada:***@db:5432/paperbot"),
        ("postgresql+psycopg://ada:p%40ss@db/paperbot", "postgresql+psycopg://ada:***@db/paperbot"),
        ("https://:s3cret@feeds.example/rss", "https://:***@feeds.example/rss"),
        ("https://ada@feeds.example/rss", "https://ada@feeds.example/rss"),  # no password
        ("https://feeds.example/rss?at=a:b@c", "https://feeds.example/rss?at=a:b@c"),
        ("sqlite:///data/paperbot.db", "sqlite:///data/paperbot.db"),
        (
            "cannot fetch https://ada:s3cret@a.example/x: see https://bo:pw@b.example/y",
            "cannot fetch https://ada:***@a.example/x: see https://bo:***@b.example/y",
        ),
        ("no URL here: ada:s3cret@host", "no URL here: ada:s3cret@host"),
    ],
)
def test_masked_urls(text: str, shown: str) -> None:
    assert masked_urls(text) == shown
