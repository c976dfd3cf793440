"""The names readers give: kept normalized, never invisible, the same name whatever its case."""

from __future__ import annotations

import pytest

from app.core.names import comparison_key, is_visible, kept_form


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "\u200b\u200c\u200d",  # zero-width space and joiners
        "\u200e\u200f\u061c",  # direction marks
        "\u202a\u202b\u202c\u202d\u202e",  # embeddings and overrides
        "\u2066\u2067\u2068\u2069",  # isolates
        "\ufeff",  # byte order mark
        "\ufffd\ufffc",  # replacement characters
        "\u3164\uffa0\u115f\u1160",  # Hangul fillers
        "\u2800",  # Braille blank
        "\u0301\u20dd",  # marks with no letter to sit on
        "\ue000",  # private use
        "\u00a0\u3000\u2028",  # spaces and separators
    ],
    ids=ascii,
)
def test_text_that_draws_nothing_is_not_visible(text: str) -> None:
    assert not is_visible(text)
    assert not is_visible(kept_form(text))


@pytest.mark.parametrize("text", ["a", "7", "?", "€", "é", "中", "🙂", "\u200bx\u202e"], ids=ascii)
def test_one_character_that_draws_is_enough(text: str) -> None:
    assert is_visible(text)


def test_a_name_is_kept_in_compatibility_form_with_whitespace_collapsed() -> None:
    assert kept_form("  \uff27raph\u3000\u3000ﬁlters\u00a0 ") == "Graph filters"


def test_names_alike_but_for_case_width_or_invisible_characters_compare_equal() -> None:
    key = comparison_key("graph neural networks")
    for alike in (
        "GRAPH neural networks",
        "\uff47\uff52\uff41\uff50\uff48 neural networks",
        "graph\u200b neural\u00a0networks\u200f",
        "\u202egraph neural networks\u202c",
        "graph\ufe0f neural networks",
        "gr\u034faph neural networks\U000e0001",
    ):
        assert comparison_key(alike) == key
    assert comparison_key("Straße") == comparison_key("STRASSE")
    assert comparison_key("graph neural network") != key
