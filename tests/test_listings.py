"""Each listing case parses to exactly its sibling .expected.json; no input crashes a parser."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core.listings import ListingError, parse_listing
from tests.listing_cases import case_files, expected_path, render_case


@pytest.mark.parametrize("case", case_files(), ids=lambda p: p.name)
def test_listing_case(case: Path) -> None:
    expected = json.loads(expected_path(case).read_text())
    assert render_case(case) == expected


def test_every_format_has_a_case() -> None:
    from bot.core.listings import FORMATS

    formats = {json.loads(expected_path(c).read_text()).get("format") for c in case_files()}
    assert set(FORMATS) <= formats


def _parse_or_refuse(data: bytes) -> None:
    try:
        result = parse_listing(data, source="fuzz")
    except ListingError as error:
        assert str(error)
        return
    assert result.papers
    for paper in result.papers:
        assert isinstance(paper.title, str) and isinstance(paper.abstract, str)


@given(st.binary(max_size=2000))
def test_no_bytes_crash_a_parser(data: bytes) -> None:
    _parse_or_refuse(data)


_PIECES = st.sampled_from(
    [
        "#01Oct 22, 2026\n",
        "#02Feb 30, 2026\n",
        "cs.LG\n",
        "Papers\n",
        "\n",
        "\\\\\n",
        "arXiv:2601.14131\n",
        "arXiv:bogus\n",
        "Title: A $\\frac{1}{2}$ title {\n",
        "Authors: A, B and 3 more\n",
        "Categories: cs.AI\n",
        "-" * 78 + "\n",
        "%%--%%--%%\n",
        "\\\\ ( https://arxiv.org/abs/2601.14131 )\n",
        '  abstract text with \\"o and $x$ and % and &\n',
        "<rss version='2.0'><channel>",
        "<item>",
        "<title>T</title>",
        "</item>",
        "<feed xmlns='http://www.w3.org/2005/Atom'>",
        "<entry>",
        "<id>oai:arXiv.org:2601.00001v2</id>",
        "</entry>",
        "\\emph{",
        "}",
        "$",
        "&amp;",
        "<p>",
    ]
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_PIECES, max_size=40), st.text(max_size=200))
def test_listing_shaped_text_never_crashes(pieces: list[str], noise: str) -> None:
    _parse_or_refuse(("".join(pieces) + noise).encode("utf-8", "surrogatepass"))


@given(st.text(max_size=400))
def test_any_text_after_a_known_header_never_crashes(body: str) -> None:
    for header in ("#01Oct 22, 2026\n", "Papers\n\n", "\\\\\narXiv:2601.14131\n"):
        _parse_or_refuse((header + body).encode("utf-8", "replace"))
