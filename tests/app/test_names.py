import pytest

from app.names import author_key, collapse_whitespace


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
        ("", ""),
    ],
)
def test_every_kind_of_unicode_whitespace_collapses_like_str_split(
    text: str, collapsed: str
) -> None:
    assert collapse_whitespace(text) == collapsed == " ".join(text.split())
