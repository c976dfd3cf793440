from search.query import query_words, snippet


def test_a_snippet_marks_query_words_and_escapes_the_rest() -> None:
    words = query_words("The Experts <b>sparse</b>")
    assert words == {"experts", "sparse"}
    text = "Intro. " * 60 + "Sparse <i>experts</i> route tokens & experts agree. " + "End. " * 60
    shown = str(snippet(text, words))
    assert shown.startswith("\N{HORIZONTAL ELLIPSIS}") and shown.endswith("\N{HORIZONTAL ELLIPSIS}")
    assert "<mark>Sparse</mark> &lt;i&gt;<mark>experts</mark>&lt;/i&gt; route tokens &amp;" in shown
    assert str(snippet("A short abstract.", {"abstract"})) == "A short <mark>abstract</mark>."
    assert str(snippet("Expert systems.", {"expert"})) == "<mark>Expert</mark> systems."
