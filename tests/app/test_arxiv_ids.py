import pytest

from app.core.arxiv_ids import ArxivId, InvalidArxivIdError, is_arxiv_id, parse_arxiv_id


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2503.11731", ArxivId("2503.11731", None)),
        ("2503.11731v2", ArxivId("2503.11731", 2)),
        ("0704.0001", ArxivId("0704.0001", None)),
        ("1412.9999v10", ArxivId("1412.9999", 10)),
        ("2503.11731v9999", ArxivId("2503.11731", 9999)),
        ("hep-th/9901001v1", ArxivId("hep-th/9901001", 1)),
        ("hep-th/9901001", ArxivId("hep-th/9901001", None)),
        ("math.AG/0601001", ArxivId("math/0601001", None)),
        ("cond-mat.str-el/0603001v3", ArxivId("cond-mat/0603001", 3)),
        ("arXiv:2503.11731v1", ArxivId("2503.11731", 1)),
        ("http://arxiv.org/abs/2104.12255v1", ArxivId("2104.12255", 1)),
        ("https://arxiv.org/pdf/hep-ex/0406020v1", ArxivId("hep-ex/0406020", 1)),
        ("https://arxiv.org/pdf/2503.11731v2.pdf", ArxivId("2503.11731", 2)),
        ("oai:arXiv.org:2503.11731", ArxivId("2503.11731", None)),
        ("  2503.11731 \n", ArxivId("2503.11731", None)),
    ],
)
def test_every_spelling_parses_to_the_base_id_and_its_version(text: str, expected: ArxivId) -> None:
    assert parse_arxiv_id(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "abc",
        "2503.1173",  # four digits after 2015
        "1412.12345",  # five digits before 2015
        "2513.11731",  # month 13
        "2503.11731v0",
        "2503.11731v",
        "2503.11731v12345",  # a version past four digits
        "2503.11731v" + "9" * 4301,  # past Python's integer-digit limit
        "hep-th/9901001v" + "9" * 4301,
        "arXiv:2503.11731v" + "0" * 4300 + "1",
        "hep-th/990100",
        "HEP-TH/9901001",
        "hep-th/9913001",  # month 13
        "2503.11731; DROP TABLE papers",
    ],
)
def test_anything_else_is_refused_with_a_clear_error(text: str) -> None:
    with pytest.raises(InvalidArxivIdError, match="not an arXiv identifier"):
        parse_arxiv_id(text)
    assert not is_arxiv_id(text)


def test_an_id_prints_with_its_version_and_knows_its_style() -> None:
    assert str(parse_arxiv_id("hep-th/9901001v1")) == "hep-th/9901001v1"
    assert str(parse_arxiv_id("2503.11731")) == "2503.11731"
    assert parse_arxiv_id("hep-th/9901001").is_old_style
    assert not parse_arxiv_id("2503.11731").is_old_style


def test_the_error_for_a_very_long_text_quotes_only_its_start() -> None:
    with pytest.raises(InvalidArxivIdError) as refused:
        parse_arxiv_id("2503.11731v" + "9" * 4301)
    assert len(str(refused.value)) < 120
