import pytest

from bot.core.authors import (
    MAX_AUTHORS,
    is_surname_first,
    parse_authors,
    parse_surname_first,
    surname_last,
)


@pytest.mark.parametrize(
    ("line", "names", "more"),
    [
        (
            "Hayden Prairie, Jacob M. Ryan, Taylor Berg-Kirkpatrick and 1 more",
            ("Hayden Prairie", "Jacob M. Ryan", "Taylor Berg-Kirkpatrick"),
            1,
        ),
        (
            "Amila Indika, Rick Kazman, Anthony Peruma",
            ("Amila Indika", "Rick Kazman", "Anthony Peruma"),
            0,
        ),
        ("A, B, C and D", ("A", "B", "C", "D"), 0),
        ("A. One (1), B. Two (2) ((1) Univ X, (2) Univ Y)", ("A. One", "B. Two"), 0),
        (
            "G. Aad, B. Abbott, et al. (1271 additional authors not shown)",
            ("G. Aad", "B. Abbott"),
            1271,
        ),
        ("G. Aad et al.", ("G. Aad",), -1),
        ("Rodrigo Falc\\~ao", ("Rodrigo Falcão",), 0),
        ("Ann B, C D (X Collaboration)", ("Ann B", "C D", "X Collaboration"), 0),
        ("", (), 0),
    ],
)
def test_parse_authors(line: str, names: tuple[str, ...], more: int) -> None:
    assert parse_authors(line) == (names, more)


def test_long_lists_are_capped_and_counted() -> None:
    names, more = parse_authors(", ".join(f"Person {i}" for i in range(3000)))
    assert len(names) == MAX_AUTHORS and names[0] == "Person 0"
    assert more == 3000 - MAX_AUTHORS


@pytest.mark.parametrize(
    ("name", "surname_first", "written"),
    [
        ("Quinn, A. J.", True, "A. J. Quinn"),
        ("Kumar, V. G.", True, "V. G. Kumar"),
        ("Roy, D", True, "D. Roy"),
        ("Lee-Wu, A.-B.", True, "A.-B. Lee-Wu"),
        ("Smith, John", False, "John Smith"),
        ("Chen C", False, "Chen C"),
        ("A, B, C", False, "A, B, C"),
    ],
)
def test_surname_first_names(name: str, surname_first: bool, written: str) -> None:
    assert (is_surname_first(name), surname_last(name)) == (surname_first, written)


def test_surname_first_lists_are_capped_and_counted() -> None:
    names, more = parse_surname_first([f"Person{i}, A." for i in range(150)] + [" "])
    assert (names[0], len(names), more) == ("A. Person0", MAX_AUTHORS, 50)
