"""arXiv identifiers from untrusted text (search boxes, URLs, feeds, import lines), at random."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from app.core.arxiv_ids import ArxivId, InvalidArxivIdError, parse_arxiv_id

MONTHS = st.integers(1, 12).map(lambda month: f"{month:02d}")
NEW_STYLE = st.builds(
    lambda year, month, number, version: f"{year:02d}{month}.{number:05d}{version}",
    st.integers(15, 99),
    MONTHS,
    st.integers(0, 99_999),
    st.sampled_from(["", "v1", "v2", "v17"]),
)
OLD_STYLE = st.builds(
    lambda archive, year, month, number: f"{archive}/{year:02d}{month}{number:03d}",
    st.sampled_from(["hep-th", "math", "cond-mat", "astro-ph"]),
    st.integers(91, 99),
    MONTHS,
    st.integers(0, 999),
)
PREFIXES = st.sampled_from(["", "arXiv:", "https://arxiv.org/abs/", "oai:arXiv.org:", " "])
VALID = st.tuples(PREFIXES, NEW_STYLE | OLD_STYLE).map("".join)


@st.composite
def near_misses(draw: st.DrawFn) -> str:
    """A valid spelling with one character replaced, or text added at its end."""
    text = draw(VALID)
    at = draw(st.integers(0, len(text) - 1))
    if draw(st.booleans()):
        return text + draw(st.text(max_size=3))
    other = st.characters() | st.characters(categories=["Nd", "Zs"])  # digits of other scripts
    return text[:at] + draw(other) + text[at + 1 :]


def parsed_or_refused(text: str) -> ArxivId | None:
    try:
        return parse_arxiv_id(text)
    except InvalidArxivIdError:
        return None


@given(st.text(max_size=60) | near_misses())
@example("\u0662\u0665\u0660\u0663.\u0661\u0661\u0667\u0663\u0661")  # Arabic-Indic digits
@example("2503.11731v" + "9" * 4301)  # a version past Python's integer-digit limit
@settings(max_examples=400, deadline=None)
def test_any_text_is_an_identifier_in_its_canonical_form_or_refused(text: str) -> None:
    parsed = parsed_or_refused(text)
    if parsed is not None:
        assert parsed.base.isascii() and parsed.base.isprintable() and " " not in parsed.base
        assert parse_arxiv_id(str(parsed)) == parsed
        assert parsed.version is None or parsed.version >= 1


@given(PREFIXES, NEW_STYLE | OLD_STYLE)
@settings(max_examples=100, deadline=None)
def test_every_spelling_of_a_valid_identifier_names_the_same_paper(
    prefix: str, identifier: str
) -> None:
    assert parse_arxiv_id(prefix + identifier) == parse_arxiv_id(identifier)
    assert parse_arxiv_id(identifier).base == identifier.split("v")[0]
