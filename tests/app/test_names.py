import random
import re

import pytest

from app.core.names import (
    NameParts,
    author_key,
    author_keys,
    collapse_each,
    collapse_whitespace,
    is_group_key,
    name_parts,
)


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("José Pérez", "jose-perez"),
        ("Jose Perez", "jose-perez"),
        ("JOSÉ  PÉREZ", "jose-perez"),
        ("Moreno D'Incà", "moreno-d-inca"),
        ("C. -P. Yuan", "c-p-yuan"),
        ("Søren Łukasz Østergård", "soren-lukasz-ostergard"),
        ("Björn Ommer", "bjorn-ommer"),
        ("王伟", "王伟"),
        ("  ", ""),
    ],
)
def test_an_author_key_folds_accents_case_and_punctuation(name: str, key: str) -> None:
    assert author_key(name) == key


def test_an_author_key_is_bounded_in_length() -> None:
    assert len(author_key("a " * 500)) <= 200


def test_whitespace_runs_and_line_breaks_collapse_to_one_space() -> None:
    assert collapse_whitespace("  Calculation of prompt\n  diphoton\tproduction ") == (
        "Calculation of prompt diphoton production"
    )


@pytest.mark.parametrize(
    ("text", "collapsed"),
    [
        ("Already collapsed text", "Already collapsed text"),
        ("no\u00a0break\u2009thin\u3000ideographic", "no break thin ideographic"),
        (" leading", "leading"),
        ("trailing ", "trailing"),
        ("two  spaces", "two spaces"),
        ("line\u2028separator\x85next-line", "line separator next-line"),
        (
            "ascii\x0bvertical\x0cfeed\rreturn\x1cfile\x1funit",
            "ascii vertical feed return file unit",
        ),
        ("a bell\x07stays", "a bell\x07stays"),
        ("hard\nwrapped\nabstract", "hard wrapped abstract"),
        ("wrapped\n\nparagraphs", "wrapped paragraphs"),
        ("", ""),
    ],
)
def test_every_kind_of_unicode_whitespace_collapses_like_str_split(
    text: str, collapsed: str
) -> None:
    assert collapse_whitespace(text) == collapsed == " ".join(text.split())


@pytest.mark.parametrize(
    "names",
    [
        [],
        [""],
        ["", ""],
        ["Ann Lee", "Bo Chen"],
        ["Ann  Lee", "Bo Chen"],
        [" Ann Lee", "Bo Chen "],
        ["Ann Lee", "", "Bo Chen"],
        ["Ann\nLee", "Bo\u00a0Chen"],
        ["A | B", "C|D", "|", " | "],
        ["Ann Lee\x00", "\x07Bo"],
    ],
)
def test_collapsing_a_list_of_names_matches_collapsing_each_name(names: list[str]) -> None:
    assert collapse_each(names) == tuple(name for name in map(collapse_whitespace, names) if name)


def test_collapsing_a_list_refuses_an_item_that_is_not_text() -> None:
    with pytest.raises(TypeError):
        collapse_each(["Ann Lee", 7])  # type: ignore[list-item]


@pytest.mark.parametrize(
    "name",
    ["Ann Lee", "C. -P. Yuan", "O'Neil_Smith", "R2-D2 Droid", "  --x--  ", "a.b,c;d", "A" * 300],
)
def test_the_ascii_shortcut_gives_the_general_key(name: str) -> None:
    general = re.sub(r"[\W_]+", "-", name.casefold()).strip("-")[:200].rstrip("-")
    assert author_key(name) == general


@pytest.mark.parametrize(
    "names",
    [
        (),
        ("Ann Lee",),
        ("Ann Lee", "C. -P. Yuan", "O'Neil_Smith", "--", "R2-D2 Droid"),
        ("José Pérez", "Ann Lee"),
        ("Ann\x1fLee", "Bo Chen"),  # the separator inside a name (never in a collapsed one)
        ("A " * 150, "Bo Chen", "x" * 250 + "-y"),
        ("a-" * 100 + "b", "ok"),
    ],
)
def test_keys_of_an_author_list_are_the_key_of_each_name(names: tuple[str, ...]) -> None:
    assert author_keys(names) == tuple(author_key(name) for name in names)


def test_keys_of_random_ascii_author_lists_are_the_key_of_each_name() -> None:
    # Separators, punctuation and spaces in every position, around and between names.
    chooser = random.Random(7)
    for _ in range(20_000):
        names = tuple(
            "".join(chooser.choice("ab Z9.-_'|,\x1f\t") for _ in range(chooser.randint(0, 8)))
            for _ in range(chooser.randint(0, 5))
        )
        assert author_keys(names) == tuple(map(author_key, names)), names


def test_a_name_splits_where_arxiv_puts_the_keyname_last() -> None:
    assert name_parts("Ashish Vaswani") == NameParts("Vaswani", "Ashish")
    assert name_parts("  Johannes  Diderik van der Waals ") == NameParts(
        "van der Waals", "Johannes Diderik"
    )
    assert name_parts("Martin Luther King Jr.") == NameParts("King", "Martin Luther", "Jr.")
    assert name_parts("A. N. O'Brien-Smith") == NameParts("O'Brien-Smith", "A. N.")
    assert name_parts("José Pérez") == NameParts("Pérez", "José")
    # A particle alone before the keyname is a forename: no name is left without one.
    assert name_parts("van Gogh") == NameParts("Gogh", "van")


def test_a_name_that_is_not_a_persons_has_no_parts() -> None:
    for name in (
        "Plato",
        "ATLAS Collaboration",
        "The LIGO Scientific Collaboration",
        "Jane Doe et al.",
        "R2 D2",
        '"><img src=x onerror=alert(3)>',
        "Doe, Jane",
        "",
    ):
        assert name_parts(name) is None, name


def test_a_split_name_is_written_family_name_first() -> None:
    assert NameParts("van der Waals", "Johannes").inverted == "van der Waals, Johannes"
    assert NameParts("King", "Martin Luther", "Jr.").inverted == "King, Martin Luther, Jr."


def test_collaborations_teams_and_consortia_are_groups_and_people_are_not() -> None:
    groups = [
        "ATLAS Collaboration",
        "Kling Team",
        "Team Olmo",
        "Imagen-Team-Google",
        "the UUSIC25 Challenge Consortium",
        "Alzheimer's Disease Neuroimaging Initiative",
        "CRUK ICGC Prostate Group",
        "Shanghai AI Lab",
        "Lanser Contributors",
    ]
    people = ["Hans Group", "Mary Lab", "Team", "Zhe Qu", "Teamson Li", "Ana Groupe Lima"]
    assert [name for name in groups if not is_group_key(author_key(name))] == []
    assert [name for name in people if is_group_key(author_key(name))] == []
