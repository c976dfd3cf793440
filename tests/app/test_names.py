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
