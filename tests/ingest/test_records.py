"""The rule every source's records pass: no control characters, every field within its limit."""

from __future__ import annotations

from typing import Any

import pytest

from ingest.records import LIMITS, PaperRecord, RecordError, checked

RECORD = PaperRecord(
    arxiv_id="2503.11731",
    version=1,
    title="A title",
    abstract="An abstract.",
    authors=("Ann Lee", "Bo Li"),
    categories=("cs.LG", "cs.AI"),
    primary_category="cs.LG",
    comment="10 pages",
    journal_ref="J. Test 1 (2025)",
    doi="10.1/x",
    license="http://creativecommons.org/licenses/by/4.0/",
)
# The largest of the 74,728 papers of the real corpus (shared/data/corpus), field by field.
REAL_MAXIMA = {"title": 226, "abstract": 3488, "comment": 431, "authors": 3303, "categories": 8}


def test_a_clean_record_passes_unchanged() -> None:
    assert checked(RECORD) is RECORD


def test_control_characters_are_removed_from_every_text_field() -> None:
    dirty = RECORD._replace(
        title="A\x00 title\x07",
        abstract="An \x1b[31mabstract\x7f.\x9b Tab\there, line\nthere, \u202eright-to-left\u202c.",
        authors=("Ann\x00 Lee", "\x08", "Bo\u0085Li"),
        comment="10\x0c pages\x01",
        journal_ref="J.\x00 Test 1 (2025)",
        doi="10.1/x\x00",
        license="http://creativecommons.org/licenses/by/4.0/\x1f",
    )
    clean = checked(dirty)
    assert clean.title == "A title"
    assert clean.abstract == ("An [31mabstract. Tab here, line there, \u202eright-to-left\u202c.")
    assert clean.authors == ("Ann Lee", "Bo Li")
    assert (clean.comment, clean.journal_ref, clean.doi) == (
        "10 pages",
        "J. Test 1 (2025)",
        "10.1/x",
    )
    assert clean.license == RECORD.license


def test_a_lone_surrogate_is_removed() -> None:
    assert checked(RECORD._replace(title="A \ud800title")).title == "A title"


def test_a_title_made_only_of_control_characters_is_rejected() -> None:
    with pytest.raises(RecordError, match="missing title"):
        checked(RECORD._replace(title="\x00\x01 \x02"))


def test_an_optional_field_made_only_of_control_characters_becomes_absent() -> None:
    assert checked(RECORD._replace(comment="\x00")).comment is None


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("title", "t" * (LIMITS.title + 1)),
        ("abstract", "a" * (LIMITS.abstract + 1)),
        ("comment", "c" * (LIMITS.comment + 1)),
        ("journal_ref", "j" * (LIMITS.reference + 1)),
        ("doi", "d" * (LIMITS.reference + 1)),
        ("license", "l" * (LIMITS.reference + 1)),
        ("authors", ("A Name",) * (LIMITS.authors + 1)),
        ("authors", ("n" * (LIMITS.author_text + 1),)),
        ("categories", tuple(f"cs.C{index}" for index in range(LIMITS.categories + 1))),
        ("primary_category", "cs." + "x" * 40),
    ],
)
def test_a_field_over_its_limit_is_a_rejection_that_names_the_field(field: str, value: Any) -> None:
    with pytest.raises(RecordError, match=f"^{field.replace('_', ' ')}: .*, over the limit of "):
        checked(RECORD._replace(**{field: value}))


def test_the_limits_hold_every_real_paper_with_room_to_spare() -> None:
    assert LIMITS.title >= 4 * REAL_MAXIMA["title"]
    assert LIMITS.abstract >= 2 * REAL_MAXIMA["abstract"]
    assert LIMITS.comment >= 4 * REAL_MAXIMA["comment"]
    assert LIMITS.authors >= 2 * REAL_MAXIMA["authors"]
    assert LIMITS.categories >= 3 * REAL_MAXIMA["categories"]
    largest = RECORD._replace(
        title="t" * LIMITS.title,
        abstract="a" * LIMITS.abstract,
        authors=tuple(f"Author Number{index}" for index in range(LIMITS.authors)),
    )
    assert checked(largest) is largest


def test_tex_accents_in_author_names_are_decoded_and_nothing_else_is() -> None:
    tex = RECORD._replace(
        title="On $\\'e$tale maps",
        authors=("Daniel P\\\\'erez Herrera", "Mikkel {\\O}bro", "{}", "Bo Li"),
    )
    record = checked(tex)
    assert record.authors == ("Daniel Pérez Herrera", "Mikkel Øbro", "Bo Li")
    assert record.title == tex.title
