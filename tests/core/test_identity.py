from bot.core.identity import Identity, IdentityIndex, merge
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
