"""TeX accents in author names decode to the Unicode name, and key as that name does."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from app.core.names import author_key, author_keys
from app.core.tex import decode_tex_accents


@pytest.mark.parametrize(
    ("tex", "name"),
    [
        # Real author lines of arXiv (the Kaggle snapshot and arXiv's own feeds).
        ("Daniel P\\'erez Herrera", "Daniel Pérez Herrera"),
        ("Daniel P\\\\'erez Herrera", "Daniel Pérez Herrera"),  # as arXiv's feed escapes it
        ("Mikkel {\\O}bro", "Mikkel Øbro"),
        ("Rastislav \\v{S}r\\'amek", "Rastislav Šrámek"),
        ("Bro\\v{n}a Brejov\\'a", "Broňa Brejová"),
        ("Tom\\'a\\v{s} Vina\\v{r}", "Tomáš Vinař"),
        ('Franz G\\"ahler', "Franz Gähler"),
        ("R. Tom\\`as", "R. Tomàs"),
        ("Nguy\\~ên", "Nguyễn"),
        # Every accent command, bare and braced.
        ("\\'e \\`e \\^e \\\"e \\~n \\=o \\.z", "é è ê ë ñ ō ż"),
        ("\\c{c} \\v{s} \\u{a} \\H{o} \\k{a} \\r{a} \\d{o} \\b{k}", "ç š ă ő ą å ọ ḵ"),
        ("\\c c \\v s {\\c c}", "ç š ç"),
        ("{\\'e} \\'{e} {\\'{e}} \\'{ e }", "é é é é"),
        # Letters TeX names with a command.
        ("{\\o} {\\O} {\\ss} {\\aa} {\\AA} {\\l} {\\L} {\\ae} {\\oe}", "ø Ø ß å Å ł Ł æ œ"),
        ("\\i \\j", "\u0131 \u0237"),
        ("S\\o ren", "Søren"),
        ("Stra\\ss e", "Straße"),
        ("Bj\\o{}rn", "Bjørn"),
        ("\\L ukasz", "Łukasz"),
        # Dotless i under an accent is the plain letter; a space before a word ends the command.
        ("Garc\\'{\\i}a", "García"),
        ("Garc\\'\\i a", "García"),
        ("Mart\\'\\i Vidal", "Martí Vidal"),
        # Braces only group.
        ("{\\'A}lvarez", "Álvarez"),
        ("{van der} Berg", "van der Berg"),
        ("{{\\o}}", "ø"),
        # Whatever is not an accent is left as written.
        ("Ann Lee", "Ann Lee"),
        ("Aakur\\\\", "Aakur\\\\"),
        ("\\emph{Ann} Lee", "\\emph{Ann} Lee"),
        ("Peter St\\ütz", "Peter St\\ütz"),
    ],
)
def test_tex_accents_decode_to_the_unicode_name(tex: str, name: str) -> None:
    assert decode_tex_accents(tex) == name


def test_a_tex_name_has_the_key_of_its_unicode_spelling() -> None:
    assert author_key("Daniel P\\'erez Herrera") == "daniel-perez-herrera"
    assert author_key("Daniel P\\\\'erez Herrera") == "daniel-perez-herrera"
    assert author_keys(["Ann Lee", "Daniel P\\'erez Herrera", "S{\\o}ren Kierkegaard"]) == (
        "ann-lee",
        "daniel-perez-herrera",
        "soren-kierkegaard",
    )


# How TeX writes each letter, in the forms people type (a letter with no entry is itself).
_SPELLINGS: dict[str, list[str]] = {
    "é": ["\\'e", "\\'{e}", "{\\'e}", "{\\'{e}}"],
    "É": ["\\'E", "{\\'E}"],
    "è": ["\\`e", "{\\`e}"],
    "ê": ["\\^e", "\\^{e}"],
    "ü": ['\\"u', '{\\"u}', '\\"{u}'],
    "ñ": ["\\~n", "{\\~n}"],
    "ō": ["\\=o"],
    "ż": ["\\.z"],
    "ç": ["\\c{c}", "\\c c", "{\\c c}"],
    "š": ["\\v{s}", "\\v s", "{\\v{s}}"],
    "Š": ["\\v{S}"],
    "ă": ["\\u{a}"],
    "ő": ["\\H{o}"],
    "ą": ["\\k{a}"],
    "å": ["\\r{a}", "{\\aa}"],
    "í": ["\\'{\\i}", "{\\'\\i}", "\\'i"],
    "ø": ["{\\o}", "\\o{}"],
    "Ø": ["{\\O}"],
    "ß": ["{\\ss}", "\\ss{}"],
    "ł": ["{\\l}"],
}
_UNICODE_NAMES = st.text(
    alphabet=st.sampled_from([*_SPELLINGS, *"abcdefghijklmnopqrstuvwxyz", *"ABCDEFGHIJKLMN -'."]),
    max_size=30,
)


@st.composite
def _in_tex(draw: st.DrawFn, name: str) -> str:
    return "".join(draw(st.sampled_from(_SPELLINGS.get(letter, [letter]))) for letter in name)


@given(st.data(), _UNICODE_NAMES)
@example(None, "Pérez")
def test_any_name_written_in_tex_decodes_to_itself_and_keys_alike(
    data: st.DataObject | None, name: str
) -> None:
    tex = data.draw(_in_tex(name)) if data else "P\\'erez"
    assert decode_tex_accents(tex) == unicodedata.normalize("NFC", name)
    assert author_key(tex) == author_key(name)
    assert author_keys([tex, "Ann Lee"]) == (author_key(name), "ann-lee")


@given(st.text(max_size=40))
def test_decoding_never_fails_and_leaves_a_name_without_tex_as_it_is(text: str) -> None:
    decoded = decode_tex_accents(text)
    if "\\" not in text and "{" not in text:
        assert decoded is text
