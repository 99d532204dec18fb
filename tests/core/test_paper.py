import pytest

from bot.core.paper import is_preprint_doi, normalise_doi, read_arxiv_id


@pytest.mark.parametrize(
    ("typed", "arxiv_id"),
    [
        ("2506.01234", "2506.01234"),
        ("2506.01234v3", "2506.01234"),
        ("0704.0001", "0704.0001"),  # the first new-style id, four digits after the dot
        ("arXiv:2506.01234v2", "2506.01234"),
        ("ARXIV:2506.01234", "2506.01234"),
        ("https://arxiv.org/abs/2605.28691", "2605.28691"),
        ("http://arxiv.org/abs/2605.28691v1", "2605.28691"),
        ("https://arxiv.org/pdf/2605.28691", "2605.28691"),
        ("https://arxiv.org/pdf/2605.28691v2.pdf", "2605.28691"),
        ("https://arxiv.org/html/2605.28691v1/#S3", "2605.28691"),
        ("https://export.arxiv.org/abs/2605.28691", "2605.28691"),
        ("https://www.arxiv.org/abs/2605.28691?context=cs", "2605.28691"),
        ("arxiv.org/abs/2605.28691/", "2605.28691"),
        ("<https://arxiv.org/abs/2605.28691>", "2605.28691"),
        ("(2605.28691),", "2605.28691"),
        ("https://doi.org/10.48550/arXiv.2605.28691", "2605.28691"),
        ("hep-th/9901001", "hep-th/9901001"),
        ("hep-th/9901001v2", "hep-th/9901001"),
        ("https://arxiv.org/abs/hep-th/9901001v1", "hep-th/9901001"),
        ("math.GT/0309136", "math.GT/0309136"),
        ("MATH.gt/0309136", "math.GT/0309136"),  # as arXiv writes it, which is how it is stored
        ("banana", None),
        ("2506.123", None),
        ("https://example.org/abs/2605.28691", None),
        ("https://arxiv.org/list/cs.LG/recent", None),
        ("2605.28691 2605.28692", None),
        ("", None),
    ],
)
def test_read_arxiv_id(typed: str, arxiv_id: str | None) -> None:
    assert read_arxiv_id(typed) == arxiv_id


@pytest.mark.parametrize(
    ("doi", "preprint"),
    [
        ("10.1101/286609", True),  # bioRxiv's first DOIs
        ("10.1101/2020.03.01.123456", True),
        ("10.64898/2026.07.13.738145", True),  # its prefix since 2025
        ("10.1101/gr.286609.118", False),  # Genome Research: a journal of the same publisher
        ("10.1038/s41586-024-07000-1", False),
        (None, False),
    ],
)
def test_preprint_dois_are_told_from_journal_dois(doi: str | None, preprint: bool) -> None:
    assert is_preprint_doi(doi) is preprint


@pytest.mark.parametrize(
    "written",
    [
        "10.1145/3700001",
        "10.1145/3700001.",
        "DOI:10.1145/3700001",
        "https://doi.org/10.1145/3700001",
    ],
)
def test_a_doi_is_one_key_however_a_record_writes_it(written: str) -> None:
    """Case, a resolver's prefix and the full stop of the sentence it ended are not the DOI's:
    identity merges and follow-ups compare this key."""
    assert normalise_doi(written) == "10.1145/3700001"
