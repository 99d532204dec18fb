import pytest

from bot.core.clauses import cut

AGENTS = (
    "A framework that plans, executes, and aggregates evaluations of agents across many "
    "heterogeneous workflows, which makes every step of the evaluation auditable by people."
)
BENCHMARK = (
    "We introduce a benchmark of three parts: (1) a set of long videos with dense captions, (2) "
    "questions that need the whole video to be answered, and (3) a judge that scores free-form "
    "answers against references written by annotators."
)
ABBREVIATION = (
    "A model that aligns video and text tokens, i.e., leveraging the temporal order of captions "
    "to train the encoder without any labels from people at all."
)


@pytest.mark.parametrize(
    ("text", "limit", "whole_up_to", "expected"),
    [
        ("Short enough.", 20, 20, "Short enough."),
        (  # before ', which', not inside 'plans, executes, and aggregates'
            AGENTS,
            120,
            120,
            "A framework that plans, executes, and aggregates evaluations of agents across many "
            "heterogeneous workflows…",
        ),
        (AGENTS, 100, 300, AGENTS),  # no clause ends within 100: whole, as it fits in 300
        (BENCHMARK, 150, 150, "We introduce a benchmark of three parts…"),  # not after item (1)
        (ABBREVIATION, 100, 100, "A model that aligns video and text tokens…"),  # not 'i.e.…'
    ],
)
def test_cut_ends_where_a_statement_ends(
    text: str, limit: int, whole_up_to: int, expected: str
) -> None:
    assert cut(text, limit, whole_up_to) == expected
