from app.core.excerpts import excerpt, first_sentence


def test_a_card_shows_two_sentences_and_keeps_the_rest() -> None:
    shown = excerpt("We study graphs. They matter! Here is why. And more.")
    assert (shown.lead, shown.rest, shown.cut) == (
        "We study graphs. They matter!",
        "Here is why. And more.",
        False,
    )


def test_abbreviations_decimals_and_stops_inside_maths_end_no_sentence() -> None:
    text = "Models, e.g. Transformers, reach 3.5 points ($p < 0.1. Q$) in Fig. 2. Then we stop."
    assert first_sentence(text) == text.removesuffix(" Then we stop.")


def test_a_long_opening_is_cut_at_a_word_and_never_inside_inline_maths() -> None:
    text = "word " * 50 + "$a + b + c + d$ and the rest of it."
    shown = excerpt(text, limit=260)
    assert shown.cut and shown.lead.endswith("word…")
    assert "$" not in shown.lead and shown.rest.startswith("$a + b")


def test_a_long_opening_is_never_cut_inside_a_text_command() -> None:
    # Pages render the lead and the rest apart: half of \textbf{...} would show raw on both.
    text = "word " * 50 + "\\textbf{bold words that run past the limit. Still bold} and the rest."
    shown = excerpt(text, limit=260)
    assert shown.cut and shown.lead.endswith("word…")
    assert shown.rest.startswith("\\textbf{bold words") and shown.rest.count("{") == 1
    nested = "A \\emph{first {inner} part. Not a sentence} ends here. Next one."
    assert first_sentence(nested) == "A \\emph{first {inner} part. Not a sentence} ends here."


def test_broken_tex_and_short_abstracts_are_shown_whole() -> None:
    text = "We bound $\\frac{1}{ unbalanced. Never closed."
    assert excerpt(text) == excerpt(text, 5)
    assert excerpt(text).lead == text and excerpt(text).rest == ""
    assert excerpt("  Spaced \n out.  ").lead == "Spaced out."


def test_when_two_sentences_are_too_long_one_whole_sentence_is_shown() -> None:
    first, second = "A short opening sentence.", "Then " + "a long one " * 40 + "ends."
    shown = excerpt(f"{first} {second}", limit=300)
    assert (shown.lead, shown.rest, shown.cut) == (first, second, False)
