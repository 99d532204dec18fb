"""The chat's language (issue 31, item 5): a new chat takes the language of the one who first
speaks (Telegram's language_code; the console's --language), /language shows and changes it."""

from __future__ import annotations

from pathlib import Path

from tests.test_cli import paperbot

ENV = {"PAPERBOT_INBOX_SETTLE_SECONDS": "0", "PAPERBOT_INBOX_DIR": "inbox"}


def test_a_new_chat_speaks_the_first_speakers_language_until_changed(tmp_path: Path) -> None:
    (tmp_path / "inbox").mkdir()
    first = paperbot(tmp_path, "console", "--language", "de-AT", stdin="/language\n", env=ENV)
    assert first.returncode == 0, first.stderr
    assert "Sprache dieses Chats: Deutsch (de)." in first.stdout
    # a later speaker's language does not change the chat's
    later = paperbot(tmp_path, "console", "--language", "fr", stdin="/language\n", env=ENV)
    assert "Sprache dieses Chats: Deutsch (de)." in later.stdout
    back = paperbot(tmp_path, "console", stdin="/language en\n/language\n", env=ENV)
    assert "From now on I write to this chat in English." in back.stdout
    assert "This chat's language: English (en)." in back.stdout


def test_a_chat_made_without_a_language_keeps_english_whoever_speaks_next(tmp_path: Path) -> None:
    """A chat made before languages were kept (or by an update without one) has read English: a
    member's next word in German does not change it for everyone; /language does."""
    (tmp_path / "inbox").mkdir()
    assert paperbot(tmp_path, "console", stdin="/list\n", env=ENV).returncode == 0
    later = paperbot(tmp_path, "console", "--language", "de", stdin="/language\n", env=ENV)
    assert "This chat's language: English (en)." in later.stdout


def test_an_unknown_language_is_named_with_the_choices(tmp_path: Path) -> None:
    (tmp_path / "inbox").mkdir()
    result = paperbot(tmp_path, "console", stdin="/language tlh\n", env=ENV)
    assert "I do not speak tlh yet." in result.stdout
    assert "Choices: en (English), de (Deutsch)" in result.stdout
    assert "This chat's language: English (en)." in result.stdout


def test_a_german_chat_reads_its_replies_in_german(tmp_path: Path) -> None:
    """The real German catalog, through the console as a German Telegram user would speak."""
    (tmp_path / "inbox").mkdir()
    said = '/subscribe "kv cache"\n/mode weekly fri\n/status\n/help\n'
    result = paperbot(tmp_path, "console", "--language", "de", stdin=said, env=ENV)
    assert result.returncode == 0, result.stderr
    assert 'Filter 1 gespeichert, verstanden als "kv cache".' in result.stdout
    assert "ein Digest pro Woche, freitags um 08:00" in result.stdout
    # the mode in German words, beside the keyword that sets it
    assert "Modus: Wochen-Digest (weekly), freitags um 08:00" in result.stdout
    assert "Zeitzone: UTC" in result.stdout
    # the filter syntax stays what a reader types; its explanation is German
    assert '"language model": genau diese Wortfolge' in result.stdout
