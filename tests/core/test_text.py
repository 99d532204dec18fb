import pytest

from bot.core.text import clean_text, fold_key, strip_html, tex_to_unicode


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ('Sch\\"on', "Schön"),
        ("Brand\\~ao and Falc\\~{a}o", "Brandão and Falcão"),
        ("{\\'E}cole", "École"),
        ("\\emph{x} and \\textbf{bold} and {GPT}", "x and bold and GPT"),
        ("rate $\\alpha>1$ and $\\mathbb{R}^N$", "rate $α>1$ and $ℝ^N$"),
        ("$\\kappa\\log m$", "$κ log m$"),
        ("90% of cases & 4.1\\% more", "90% of cases & 4.1% more"),
        ("hard\n  wrapped\n\tlines", "hard wrapped lines"),
        ("<p>We study &amp;amp; <i>things</i>.</p>", "We study & things."),
        ("e\u0301te\u0301", "été"),
        ("", ""),
    ],
)
def test_clean_text(raw: str, clean: str) -> None:
    assert clean_text(raw) == clean


def test_tex_that_pylatexenc_cannot_read_is_kept() -> None:
    assert "text" in tex_to_unicode("\\href{http://x}{text}")


def test_plain_text_is_untouched_by_tex_and_html() -> None:
    text = "A plain abstract: 50 percent of 3 < 4 cases"
    assert tex_to_unicode(text) == text
    assert strip_html(text) == text


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("Schön:  a KV-cache!", "schon a kv cache"),
        ("Quériaux", "queriaux"),
        ("  ", ""),
        ("snake_case", "snake case"),
    ],
)
def test_fold_key(text: str, key: str) -> None:
    assert fold_key(text) == key
