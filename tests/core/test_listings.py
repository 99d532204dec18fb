"""Listings: each case parses to exactly its sibling .expected.json; then hostile files: every
parser (each format, and the detection that picks one) meets bytes, wrong encodings, deep nesting
and huge lines.

The answer is always a ParsedListing whose text can be stored and sent, or a ListingError with a
message for a person; never another exception, and never work that grows faster than the file
(tests/growth.py says how that is measured without a timed threshold)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core.listings import FORMATS, ListingError, ParsedListing, parse_listing
from bot.core.paper import Paper
from tests.growth import assert_linear
from tests.listing_cases import case_files, expected_path, render_case


@pytest.mark.parametrize("case", case_files(), ids=lambda p: p.name)
def test_listing_case(case: Path) -> None:
    expected = json.loads(expected_path(case).read_text())
    assert render_case(case) == expected


def test_every_format_has_a_case() -> None:
    formats = {json.loads(expected_path(c).read_text()).get("format") for c in case_files()}
    assert set(FORMATS) <= formats


@pytest.mark.parametrize(
    ("case", "journal_ref", "comments"),
    [
        ("api_atom.xml", "Eur.Phys.J. C31 (2003) 17-29", "23 pages, 8 figures and 4 tables"),
        ("email_tex_affiliations.txt", "Phys. Rev. D 99 (2026) 1", "12 pages; v2 fixes a typo"),
    ],
)
def test_journal_ref_and_comments_survive_each_arxiv_format(
    case: str, journal_ref: str, comments: str
) -> None:
    """Follow-ups read a new version's journal reference and its comments ('accepted at …'):
    the API's Atom keeps both, as the mailing does."""
    path = Path(__file__).parent.parent / "data" / "listings" / case
    papers = parse_listing(path.read_bytes(), source=case).papers
    assert [(p.journal_ref, p.comments) for p in papers if p.journal_ref] == [
        (journal_ref, comments)
    ]


# -- hostile files ---------------------------------------------------------------------------------

CASES = {case.name: case.read_bytes() for case in case_files()}
# No control character (NUL is refused by PostgreSQL), no lone surrogate (UTF-8 can't carry it).
UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def assert_storable(paper: Paper) -> None:
    texts = [paper.title, paper.abstract, *paper.authors, *paper.categories]
    texts += [paper.journal_ref or "", paper.comments or "", paper.link or "", paper.doi or ""]
    texts += [paper.arxiv_id or ""]
    for text in texts:
        assert not UNPRINTABLE.search(text), text[:200]
    if paper.link:
        assert paper.link.startswith(("https://", "http://")) and " " not in paper.link


def read(data: bytes) -> ParsedListing | str:
    """The listing parsed (every paper storable), or the ListingError's message."""
    try:
        parsed = parse_listing(data, source="hostile")
    except ListingError as error:
        assert str(error).strip() and len(str(error)) < 1000  # for a person: short
        return str(error)
    assert parsed.papers and all(len(problem) < 1000 for problem in parsed.problems)
    for paper in parsed.papers:
        assert_storable(paper)
    return parsed


# -- bytes, encodings and shapes: every format, by hypothesis ------------------------------------


@given(st.binary(max_size=2000))
def test_no_bytes_crash_a_parser(data: bytes) -> None:
    read(data)


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
    read(("".join(pieces) + noise).encode("utf-8", "surrogatepass"))


@given(st.text(max_size=400))
def test_any_text_after_a_known_header_never_crashes(body: str) -> None:
    for header in ("#01Oct 22, 2026\n", "Papers\n\n", "\\\\\narXiv:2601.14131\n"):
        read((header + body).encode("utf-8", "replace"))


ENCODINGS = ["latin-1", "cp1252", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-8-sig"]
NESTED = [b"<a>", b"<b>", b"{", b"\\emph{", b"$", b"(", b"&lt;i&gt;", b"<![CDATA[", b"<!--"]


@st.composite
def mangled(draw: st.DrawFn) -> bytes:
    """A real case of some format, then a few of: re-encoded, bytes spliced in, cut off, a line
    repeated into a long one, something nested deep."""
    data = CASES[draw(st.sampled_from(sorted(CASES)))]
    for _ in range(draw(st.integers(1, 3))):
        how = draw(st.sampled_from(["encode", "splice", "cut", "repeat", "nest"]))
        at = draw(st.integers(0, len(data)))
        if how == "encode":
            text = data.decode("utf-8", "replace")
            data = text.encode(draw(st.sampled_from(ENCODINGS)), "replace")
        elif how == "splice":
            data = data[:at] + draw(st.binary(min_size=1, max_size=64)) + data[at:]
        elif how == "cut":
            data = data[:at]
        elif how == "repeat":
            lines = data.split(b"\n")
            line = draw(st.integers(0, len(lines) - 1))
            lines[line] *= min(draw(st.integers(2, 500)), 100_000 // max(len(lines[line]), 1))
            data = b"\n".join(lines)
        else:
            data = (
                data[:at] + draw(st.sampled_from(NESTED)) * draw(st.integers(1, 3000)) + data[at:]
            )
    return data


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(mangled())
def test_every_format_mangled_parses_or_is_refused_with_a_reason(data: bytes) -> None:
    read(data)


# -- encodings ----------------------------------------------------------------------------------

NUMBERED = "#01Oct 22, 2026\ncs.LG\n{title}\nAnn Lee, Bo Chen\n{abstract}\n"
SCHON = NUMBERED.format(title="Schön's Café models", abstract="Über die Größe " * 10)


@pytest.mark.parametrize(
    ("encoding", "problem"),
    [
        ("utf-8", None),
        ("utf-8-sig", None),
        ("utf-16", None),  # with its byte order mark
        ("utf-16-le", "no byte order mark; read as UTF-16-LE"),
        ("utf-16-be", "no byte order mark; read as UTF-16-BE"),
        ("latin-1", "not UTF-8 (byte 25); read as Windows-1252 (Latin-1)"),
        ("cp1252", "not UTF-8 (byte 25); read as Windows-1252 (Latin-1)"),
    ],
)
def test_a_listing_in_another_encoding_is_read_and_says_so(
    encoding: str, problem: str | None
) -> None:
    parsed = read(SCHON.encode(encoding))
    assert isinstance(parsed, ParsedListing), parsed
    [paper] = parsed.papers
    assert (paper.title, paper.abstract[:14]) == ("Schön's Café models", "Über die Größe")
    assert parsed.problems == ([problem] if problem else [])


def test_stray_bytes_in_utf8_are_replaced_and_reported() -> None:
    data = SCHON.encode().replace(b"Caf\xc3\xa9", b"Caf\xe9")
    parsed = read(data)
    assert isinstance(parsed, ParsedListing)
    assert parsed.papers[0].title == "Schön's Café models".replace("é", "\ufffd")
    assert parsed.problems == ["invalid utf-8 at byte 34; unreadable bytes replaced"]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (SCHON.encode("utf-32"), "binary file"),
        (
            b"\\\\\narXiv:2601.00001" + b"x" * 100_000 + b"\nTitle: t\n",
            "no readable entries: entry",
        ),
        (b"<rss><" + b"a" * 100_000, "not a readable feed: XML error"),
        (b"x" * 100_000, "unrecognised listing format (first line 'xxxxxxx"),
        (bytes(range(256)) * 40, "binary file"),
        (b"\x89PNG\r\n\x1a\n" + bytes(range(1, 200)) * 50, "binary file"),
        (b"\n\n  \t\n", "empty file"),
        (b"[" * 10_000 + b"]" * 10_000, "unrecognised listing format"),  # JSON nested deep
        (b'{"papers": [' + b"{" * 10_000, "unrecognised listing format"),
        (b'{"messages": [], "collection": ' + b"[" * 100_000, "not a readable bioRxiv API"),
        (
            b'{"messages": [{"status": "no posts found"}], "collection": []}',
            "bioRxiv API answer without papers (status 'no posts found')",
        ),
        (b'{"messages": [], "collection": [1, "x", {}]}', "no readable entries: record 1"),
        (b"<PubmedArticleSet><PubmedArticle>" + b"<x>" * 100_000, "no readable entries"),
        (b"<PubmedArticleSet></PubmedArticleSet>", "pubmed-xml listing without any entries"),
    ],
)
def test_what_is_no_listing_is_refused_with_a_reason(data: bytes, message: str) -> None:
    assert message in str(read(data))


# -- control characters and character references -------------------------------------------------

FEED = (
    "<rss version='2.0'><channel><item><title>T{0}x</title><description>d{0}</description>"
    "<link>https://example.org/{0}</link><guid>g</guid></item></channel></rss>"
)


@pytest.mark.parametrize(
    "reference",
    ["&#0;", "&#1;", "&#x1b;", "&#xD800;", "&#xDFFF;", "&#x110000;", "&#99999999999;",
     "&#x" + "f" * 5000 + ";", "&#127;", "&#x85;"],
)  # fmt: skip
def test_character_references_that_name_no_character_are_no_crash(reference: str) -> None:
    parsed = read(FEED.format(reference).encode())
    assert isinstance(parsed, ParsedListing)
    assert parsed.papers[0].title in ("T\ufffdx", "Tx", "T…x")  # feedparser reads &#x85; as cp1252


@pytest.mark.parametrize("control", ["\x00", "\x01", "\x1b[31m", "\x7f", "\x0b\x0c", "\x85"])
def test_control_characters_past_the_first_kilobytes_are_dropped(control: str) -> None:
    abstract = "x" * 9000 + control + "abstract"  # the NUL check only looks at the start
    parsed = read(NUMBERED.format(title="T", abstract=abstract).encode())
    assert isinstance(parsed, ParsedListing)
    assert parsed.papers[0].abstract.removeprefix("x" * 9000) in (
        "abstract",
        " abstract",
        "[31mabstract",
    )


@pytest.mark.parametrize(
    "link",
    ["javascript:alert(1)", "https://e.org/a b", "https://e.org/" + "a" * 5000, "file:///etc/passwd",
     " https://e.org/x\n"],
)  # fmt: skip
def test_a_feed_entry_links_only_to_a_web_address(link: str) -> None:
    feed = FEED.replace("https://example.org/{0}", "{0}").format(link.replace("&", "&amp;"))
    parsed = read(feed.encode())
    assert isinstance(parsed, ParsedListing)
    assert parsed.papers[0].link in (None, "https://e.org/x")


@pytest.mark.parametrize(
    ("identifier", "doi"),
    [
        ("doi:10.1101/2018.01.02.286609", "10.1101/2018.01.02.286609"),
        ("doi:10.1101/gr.286609.118", "10.1101/gr.286609.118"),  # Genome Research's: a journal
        ("https://doi.org/10.1093/Zool/zlab078", "10.1093/zool/zlab078"),
        ("10.1038/d415&#11;86-024", None),  # a vertical tab spliced in
        ("10.1038/d415 86-024", None),
        ("pmid:34929406", None),
        ("10.1101", None),
    ],
)
def test_a_feed_entry_has_a_doi_only_when_it_is_one(identifier: str, doi: str | None) -> None:
    feed = FEED.replace("<guid>g</guid>", f"<dc:identifier>{identifier}</dc:identifier>")
    feed = feed.replace("<rss ", "<rss xmlns:dc='http://purl.org/dc/elements/1.1/' ")
    parsed = read(feed.format("").encode())
    assert isinstance(parsed, ParsedListing)
    assert (parsed.papers[0].doi or parsed.papers[0].preprint_doi) == doi
    preprint = bool(doi and doi.startswith("10.1101/2018"))
    assert parsed.papers[0].preprint_doi == (doi if preprint else None)


# -- nothing is read because of a name in a listing ----------------------------------------------

SECRET_FEED = (
    b"<rss version='2.0'><channel><item><title>SECRET</title><description>secret</description>"
    b"</item></channel></rss>"
)


def test_a_listing_that_names_a_file_is_read_as_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """feedparser, given bytes, first tries them as a file name: a listing consisting of a name
    must not make it read that file."""
    (tmp_path / "<x").write_bytes(SECRET_FEED)
    monkeypatch.chdir(tmp_path)
    assert "SECRET" not in str(read(b"<x"))


@pytest.mark.parametrize("closed", [True, False])  # well-formed (expat) or not (the loose parser)
def test_external_entities_are_never_read(tmp_path: Path, closed: bool) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET-CONTENT")
    feed = (
        f'<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY xxe SYSTEM "file://{secret}">'
        f'<!ENTITY % p SYSTEM "file://{secret}"> %p;]>'
        "<rss version='2.0'><channel><item><title>A &xxe; title</title>"
        "<description>&xxe;</description></item>" + ("</channel></rss>" if closed else "<item>")
    )
    assert "SECRET-CONTENT" not in repr(read(feed.encode()))


PUBMED = (
    '<?xml version="1.0"?><!DOCTYPE PubmedArticleSet [{}]><PubmedArticleSet><PubmedArticle>'
    "<MedlineCitation><PMID>1</PMID><Article><ArticleTitle>A &e; title</ArticleTitle></Article>"
    "</MedlineCitation></PubmedArticle></PubmedArticleSet>"
)


@pytest.mark.parametrize(
    "entity", ['<!ENTITY e SYSTEM "file:///etc/passwd">', '<!ENTITY e "lol">', '<!eNtItY e "x">']
)
def test_pubmed_xml_that_declares_entities_is_refused(entity: str) -> None:
    assert read(PUBMED.format(entity).encode()) == (
        "PubMed XML that declares entities of its own is refused"
    )


def test_a_cut_off_pubmed_answer_keeps_the_articles_before_the_cut() -> None:
    whole = CASES["pubmed_efetch_2019.xml"]
    third = whole.index(b"<PubmedArticle>", whole.index(b"</PubmedArticle>") + 20)
    parsed = read(whole[: third + 200])
    assert isinstance(parsed, ParsedListing)
    assert [p.link for p in parsed.papers] == [
        "https://pubmed.ncbi.nlm.nih.gov/30919711/",
        "https://pubmed.ncbi.nlm.nih.gov/27981638/",
    ]
    assert parsed.problems[0].startswith("XML is cut off or malformed (no element found")
    assert parsed.problems[0].endswith("kept the 2 articles read before it")


def test_entities_that_expand_exponentially_stay_small() -> None:
    levels = ['<!ENTITY e0 "lol">'] + [
        f'<!ENTITY e{n} "{f"&e{n - 1};" * 10}">' for n in range(1, 10)
    ]
    feed = (
        f"<?xml version='1.0'?><!DOCTYPE rss [{''.join(levels)}]><rss version='2.0'><channel>"
        "<item><title>Laughs &e9;</title><description>&e9;</description></item></channel></rss>"
    )
    parsed = read(feed.encode())
    if isinstance(parsed, ParsedListing):
        assert all(len(p.title) + len(p.abstract) < 10_000 for p in parsed.papers)


# -- deep nesting ---------------------------------------------------------------------------------

DEEP = 10_000
RSS = "<rss version='2.0'><channel><item><title>T</title><description>{}</description></item>"
ATOM = "<feed xmlns='http://www.w3.org/2005/Atom'><entry><title>T</title>{}</entry></feed>"
NESTINGS = {
    "xml elements": "<rss version='2.0'><channel><item><title>T</title>"
    + "<x>" * DEEP
    + "</x>" * DEEP
    + "</item></channel></rss>",
    "xml elements never closed": "<rss version='2.0'><channel><item><title>T</title>"
    + "<x>" * DEEP,
    "atom xhtml": ATOM.format(
        "<content type='xhtml'><div xmlns='http://www.w3.org/1999/xhtml'>"
        + "<div>" * DEEP
        + "x"
        + "</div>" * DEEP
        + "</div></content>"
    ),
    "escaped html": RSS.format("&lt;b&gt;" * DEEP + "x" + "&lt;/b&gt;" * DEEP) + "</channel></rss>",
    "html in cdata": RSS.format("<![CDATA[" + "<i>" * DEEP + "x" + "</i>" * DEEP + "]]>")
    + "</channel></rss>",
    "html in text": NUMBERED.format(title="T", abstract="<b>" * DEEP + "x" + "</b>" * DEEP),
    "tex groups": NUMBERED.format(title="T", abstract="\\emph{" * DEEP + "x" + "}" * DEEP),
    "tex math": NUMBERED.format(title="T", abstract="$" + "{" * DEEP + "x" + "}" * DEEP + "$"),
    "tex unclosed": NUMBERED.format(title="T", abstract="\\textbf{" * DEEP + "x"),
    "parentheses": NUMBERED.format(title="T", abstract="(" * DEEP + "x" + ")" * DEEP),
}


@pytest.mark.parametrize("name", NESTINGS)
def test_nesting_ten_thousand_deep_parses_or_is_refused(name: str) -> None:
    read(NESTINGS[name].encode())


# -- huge lines -----------------------------------------------------------------------------------

# What the text normaliser looks at twice: comment openers, TeX math that never closes, macros
# with an optional argument never closed, accents, entities, tags. A quadratic scan of any of
# them would not end within the suite's time on a 5 MB line.
PIECES = r"<!-- \[ a \( b \x[ \"o $$ c {\em d & &amp; <b> e~f -- ``g'' "
FIVE_MB = 5_000_000


def huge_line() -> str:
    return (PIECES * (FIVE_MB // len(PIECES) + 1))[:FIVE_MB]


EMAIL = (
    "\\\\\narXiv:2601.00001\nTitle: {title}\nAuthors: A. Lee\nCategories: cs.LG\n\\\\\n"
    "{abstract}\n\\\\ ( https://arxiv.org/abs/2601.00001 )\n"
)
ARXIV_RSS = (
    "<rss version='2.0' xmlns:arxiv='http://arxiv.org/schemas/atom'><channel><item>"
    "<title>{title}</title><guid>oai:arXiv.org:2601.00001v1</guid>"
    "<description>arXiv:2601.00001v1 Announce Type: new Abstract: {abstract}</description>"
    "<arxiv:announce_type>new</arxiv:announce_type></item></channel></rss>"
)
# The plain-text formats read a line the same way (clean_text; their own splitting is linear in
# test_parsing_grows_linearly_with_the_file), so one of them stands for all three here:
# each 5 MB line costs seconds.
HUGE = {
    "numbered abstract": lambda line: NUMBERED.format(title="T", abstract=line),
    "arxiv rss": lambda line: ARXIV_RSS.format(title="T", abstract=escape_xml(line)),
    "no format at all": lambda line: line,
}


def escape_xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;")


@pytest.mark.parametrize("name", HUGE)
def test_a_single_five_megabyte_line_is_read_in_linear_time(name: str) -> None:
    """Each format with one line of 5 MB of what costs the normaliser most: it finishes (a
    quadratic step would take hours here), and the text is kept whole."""
    parsed = read(HUGE[name](huge_line()).encode())
    if isinstance(parsed, ParsedListing):
        [paper] = parsed.papers
        assert len(paper.title) + len(paper.abstract) > FIVE_MB // 2


# -- work that grows with the file, and no faster -------------------------------------------------


def numbered(abstract: Callable[[int], str]) -> Callable[[int, int], bytes]:
    return lambda n, run: NUMBERED.format(title=f"T{run}", abstract=abstract(n)).encode()


def rss(description: Callable[[int], str]) -> Callable[[int, int], bytes]:
    return lambda n, run: (RSS.format(description(n)) + f"<!-- {run} --></channel></rss>").encode()


GROWING: dict[str, tuple[Callable[[int, int], bytes], int]] = {
    # (input of size n, n to start from)
    "comment openers": (numbered(lambda n: "<!--" * n), 1000),
    "display math never closed": (numbered(lambda n: "\\[" * n), 1000),
    "inline math never closed": (numbered(lambda n: "\\(" * n), 1000),
    "optional arguments never closed": (numbered(lambda n: "\\a[" * n), 1000),
    "one long math span": (  # each run its own span: no run is answered by the converter's cache
        lambda n, run: NUMBERED.format(
            title="T", abstract=f"$$ {run}" + "\\frac{a}{b}" * n + "$$"
        ).encode(),
        2000,  # pylatexenc's cost shows its square from spans of about 20,000 characters
    ),
    "groups never closed": (numbered(lambda n: "{\\" * n), 1000),
    "macro arguments never closed": (numbered(lambda n: "\\a{" * n), 1000),
    "tags never closed": (numbered(lambda n: "<a " * n), 1000),
    "entities": (numbered(lambda n: "&amp;lt;" * n), 1000),
    "sentences": (numbered(lambda n: "We propose X. It gains 3%. " * n), 200),
    "numbered entries": (
        lambda n, run: (NUMBERED.format(title=f"T{run}", abstract="a") * n).encode(),
        100,
    ),
    "abstracts": (
        lambda n, run: (
            ("Papers\n\n" + f"An abstract {run} that is long enough. " * 3 + "\n\n").encode() * 1
            + (("x" * 100 + "\n\n") * n).encode()
        ),
        100,
    ),
    "mailing entries": (
        lambda n, run: (EMAIL.format(title=f"T{run}", abstract="a") * n).encode(),
        100,
    ),
    "feed items": (
        lambda n, run: (
            "<rss version='2.0'><channel>"
            + f"<item><title>T{run}</title><description>d</description></item>" * n
            + "</channel></rss>"
        ).encode(),
        50,
    ),
    "feed items never closed": (
        lambda n, run: ("<rss version='2.0'><channel>" + f"<item><title>t{run}" * n).encode(),
        50,
    ),
    "xml nesting": (
        rss(lambda n: "</description><x>" + "<y>" * n + "</y>" * n + "</x><description>"),
        500,
    ),
    "escaped html nesting": (rss(lambda n: "&lt;b&gt;" * n + "x" + "&lt;/b&gt;" * n), 500),
    "comment openers in a feed": (rss(lambda n: "&lt;!--" * n), 500),
    "less-than signs": (lambda n, run: f"<{run}".encode() + b"<" * n, 1000),
    "pubmed articles": (
        lambda n, run: (
            "<PubmedArticleSet>"
            + f"<PubmedArticle><MedlineCitation><PMID>{run}</PMID><Article><ArticleTitle>T"
            "</ArticleTitle></Article></MedlineCitation></PubmedArticle>"
            * n
            + "</PubmedArticleSet>"
        ).encode(),
        50,
    ),
    "biorxiv records": (
        lambda n, run: (
            '{"messages": [], "collection": ['
            + ",".join([f'{{"title": "T{run}", "doi": "10.1101/{run}"}}'] * n)
            + "]}"
        ).encode(),
        50,
    ),
}


@pytest.mark.parametrize("name", GROWING)
def test_parsing_grows_linearly_with_the_file(name: str) -> None:
    make, start = GROWING[name]
    assert_linear(read, make, start)
