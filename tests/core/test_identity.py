import pytest

from bot.core.identity import Identity, IdentityIndex, filter_view, merge
from bot.core.paper import AnnounceType, Paper, split_arxiv_id

ABSTRACT = "We study a long enough abstract about kv caches and looping models in some detail here."


def paper(**fields: object) -> Paper:
    base: dict[str, object] = {
        "title": "BeNice! Closing the Inference-Memory Gap",
        "abstract": ABSTRACT,
        "source": "t",
    }
    base.update(fields)
    return Paper(**base)  # type: ignore[arg-type]


def find(stored: Paper, incoming: Paper) -> str | None:
    index: IdentityIndex[str] = IdentityIndex()
    index.add(Identity.of(stored), "stored")
    return index.find(Identity.of(incoming))


def test_title_key_finds_a_paper_first_seen_without_id() -> None:
    assert (
        find(
            paper(),
            paper(
                title="BeNice!  closing the inference memory gap",
                arxiv_id="2610.1",
                abstract="other",
            ),
        )
        == "stored"
    )


def test_abstract_key_finds_an_untitled_entry() -> None:
    untitled = paper(title="we study a long enough", title_derived=True)
    assert find(untitled, paper(arxiv_id="2610.18001")) == "stored"
    assert find(paper(arxiv_id="2610.18001"), untitled) == "stored"


def test_different_ids_are_different_papers_even_with_one_title() -> None:
    assert find(paper(arxiv_id="2610.00001"), paper(arxiv_id="2610.00002")) is None


def test_short_titles_and_abstracts_do_not_identify() -> None:
    assert (
        find(paper(title="Editorial", abstract="Hi."), paper(title="Editorial", abstract="Hi."))
        is None
    )


def test_doi_identifies_when_ids_are_missing() -> None:
    assert (
        find(
            paper(doi="10.1/x", title="One title here long"),
            paper(doi="10.1/x", title="Another title, also long", abstract="x"),
        )
        == "stored"
    )


def test_merge_takes_the_id_and_a_real_title() -> None:
    stored = paper(title="derived headline text", title_derived=True)
    merged, newer = merge(stored, paper(arxiv_id="2610.18001", version=1))
    assert merged.arxiv_id == "2610.18001" and not merged.title_derived and not newer
    assert merged.link == "https://arxiv.org/abs/2610.18001"


def test_merge_newer_version_replaces_the_text() -> None:
    stored = paper(arxiv_id="2610.18001", version=1)
    merged, newer = merge(
        stored,
        paper(
            arxiv_id="2610.18001",
            version=2,
            abstract="Revised.",
            announce_type=AnnounceType.REPLACE,
        ),
    )
    assert newer and merged.version == 2 and merged.abstract == "Revised."
    assert merged.announce_type is AnnounceType.REPLACE


def test_merge_of_an_older_version_changes_nothing() -> None:
    stored = paper(arxiv_id="2610.18001", version=3, link="https://arxiv.org/abs/2610.18001")
    assert merge(stored, paper(arxiv_id="2610.18001", version=2, abstract="Old.")) == (
        stored,
        False,
    )


def test_split_arxiv_id() -> None:
    assert split_arxiv_id("2601.14131v2") == ("2601.14131", 2)
    assert split_arxiv_id("hep-ex/0307015") == ("hep-ex/0307015", None)
    assert split_arxiv_id("math.GT/0309136v1") == ("math.GT/0309136", 1)
    assert split_arxiv_id("not an id") is None


def test_abstract_key_does_not_join_two_different_titles() -> None:
    assert find(paper(), paper(title="A different title altogether, long")) is None


def test_a_preprint_and_its_journal_version_meet_by_the_published_doi() -> None:
    preprint = paper(preprint_doi="10.1101/2026.03.01.612345", doi="10.1038/x.1", title="A")
    journal = paper(doi="10.1038/x.1", pmid="41999001", title="B", abstract="other")
    assert find(preprint, journal) == "stored"
    assert find(journal, preprint) == "stored"


def test_ids_of_one_kind_that_differ_are_two_papers_whatever_the_title() -> None:
    assert find(paper(pmid="1"), paper(pmid="2")) is None
    assert find(paper(preprint_doi="10.1101/111111"), paper(preprint_doi="10.1101/222222")) is None
    # a preprint's DOI and a journal's are kinds apart: the title may join them
    assert find(paper(preprint_doi="10.1101/111111"), paper(doi="10.1038/x.1")) == "stored"


def test_the_same_pmid_is_the_same_paper() -> None:
    assert find(paper(pmid="41999001"), paper(pmid="41999001", title="X", abstract="Y")) == "stored"


def test_merging_keeps_every_sources_ids() -> None:
    preprint = paper(preprint_doi="10.1101/111111", server="bioRxiv", version=1)
    record = paper(doi="10.1038/x.1", pmid="7", pmcid="PMC7", journal="Cell", mesh=("Mice",))
    merged, newer = merge(preprint, record)
    assert not newer and merged.sources == ("biorxiv", "pubmed", "journal")
    assert (merged.preprint_doi, merged.server, merged.doi, merged.pmid, merged.pmcid) == (
        "10.1101/111111", "bioRxiv", "10.1038/x.1", "7", "PMC7",
    )  # fmt: skip
    assert (merged.journal, merged.mesh) == ("Cell", ("Mice",))


def test_a_mailings_replacement_brings_the_papers_comments_and_journal_reference_now() -> None:
    """A mailing's replacement names no version: its text stays as stored, but its comments,
    journal reference and DOI are the paper's current ones (what follow-ups read)."""
    stored = paper(arxiv_id="2610.18001", version=1, comments="12 pages", doi="10.1/old")
    replacement = paper(
        arxiv_id="2610.18001",
        abstract="Revised.",
        announce_type=AnnounceType.REPLACE,
        comments="12 pages; Accepted at ICLR 2027",
        journal_ref="J. Mach. Learn. Res. 25 (2026)",
    )
    merged, newer = merge(stored, replacement)
    assert not newer and merged.version == 1 and merged.abstract == stored.abstract
    assert merged.comments == "12 pages; Accepted at ICLR 2027"
    assert merged.journal_ref == "J. Mach. Learn. Res. 25 (2026)" and merged.doi == "10.1/old"
    # a new listing (not a replacement) of the same version changes none of them
    again = paper(arxiv_id="2610.18001", version=1, comments="other")
    assert merge(stored, again)[0].comments == "12 pages"


@pytest.mark.parametrize("pubmed_first", [True, False])
def test_the_journal_keeps_its_own_spelling_over_pubmeds(pubmed_first: bool) -> None:
    record = paper(doi="10.3390/s1", pmid="7", journal="Sensors (Basel, Switzerland)")
    feed = paper(doi="10.3390/s1", journal="Sensors")
    stored, incoming = (record, feed) if pubmed_first else (feed, record)
    merged, _ = merge(stored, incoming)
    assert (merged.journal, merged.pmid) == ("Sensors", "7")
    again, _ = merge(merged, record)  # PubMed's record again changes nothing
    assert again.journal == "Sensors"


@pytest.mark.parametrize("pubmed_first", [True, False])
def test_pubmeds_abbreviations_stay_with_the_journals_own_spelling(pubmed_first: bool) -> None:
    record = paper(
        doi="10.1038/n1",
        pmid="7",
        journal="Nature neuroscience",
        journal_abbreviations=("Nat Neurosci",),
    )
    feed = paper(doi="10.1038/n1", journal="Nature Neuroscience")
    stored, incoming = (record, feed) if pubmed_first else (feed, record)
    merged, _ = merge(stored, incoming)
    assert (merged.journal, merged.journal_abbreviations) == (
        "Nature Neuroscience",
        ("Nat Neurosci",),
    )
    assert merge(merged, record)[0] == merged  # the record again changes nothing
    # another spelling of a kept abbreviation adds none
    dotted = record.with_changes(journal_abbreviations=("Nat. Neurosci.", "Nature Neurosci"))
    assert merge(merged, dotted)[0].journal_abbreviations == ("Nat Neurosci", "Nature Neurosci")


def test_of_two_journal_feeds_the_first_spelling_stays() -> None:
    merged, _ = merge(
        paper(doi="10.1038/n1", journal="NATURE"), paper(doi="10.1038/n1", journal="Nature")
    )
    assert merged.journal == "NATURE"


def test_what_filters_read_changes_with_the_fields_they_match_and_no_others() -> None:
    preprint = Paper(
        title="Grid cells map odour space", abstract="", source="b", preprint_doi="10.1101/1"
    )
    asides = preprint.with_changes(comments="12 pages", link="https://x.org/1", version=2)
    assert filter_view(asides) == filter_view(preprint)
    for brings in (
        {"mesh": ("Grid Cells",)},
        {"journal": "Nature Neuroscience"},
        {"journal_abbreviations": ("Nat Neurosci",)},
        {"pmid": "41999001"},
        {"abstract": "Grid cells in the entorhinal cortex..."},
        {"authors": ("Adaeze N Okafor",)},
        {"categories": ("q-bio.NC",)},
    ):
        assert filter_view(preprint.with_changes(**brings)) != filter_view(preprint), brings
