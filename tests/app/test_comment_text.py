"""A comment's Markdown to HTML: what nh3 lets through can run no script, whatever is typed
(a property test parses every output), maths stays for KaTeX, links are marked as readers'."""

from __future__ import annotations

from html.parser import HTMLParser

from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.comment_text import ALLOWED_TAGS, cleaned, rendered

SCRIPT_SCHEMES = ("javascript:", "vbscript:", "data:")


class ScriptFinder(HTMLParser):
    """Every element and attribute of a fragment that could run script."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in ALLOWED_TAGS:
            self.found.append(f"<{tag}>")
        for name, value in attrs:
            if name.startswith("on") or name in ("style", "src", "srcdoc", "formaction"):
                self.found.append(f"{tag}[{name}]")
            link = "".join((value or "").split()).lower()
            if link.startswith(SCRIPT_SCHEMES):
                self.found.append(f"{tag}[{name}={value}]")


def script_capable(html: str) -> list[str]:
    finder = ScriptFinder()
    finder.feed(html)
    finder.close()
    return finder.found


def test_the_finder_finds_script_it_is_shown() -> None:
    assert script_capable('<a href="javascript:x" onclick="y">z</a><script>1</script>') == [
        "a[href=javascript:x]",
        "a[onclick]",
        "<script>",
    ]


HOSTILE_PARTS = st.sampled_from(
    [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "<svg onload=alert(1)>",
        "[a](javascript:alert(1))",
        "[a](JaVaScRiPt&#58;alert(1))",
        "[a](data:text/html,<script>1</script>)",
        "<a href='javascript:1'>x</a>",
        "<iframe srcdoc='<script>1</script>'>",
        "<style>*{}</style>",
        "`code`",
        "> quote",
        "**bold *nested**",
        "<div><p><b>",
        "</a></p>",
        "\u202e",
        "\u200b",
        "$x_1$",
        "\n\n",
        "<!-- c -->",
        "&lt;",
        "[x](https://example.org)",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(HOSTILE_PARTS, st.text(max_size=20)), max_size=12).map("".join))
def test_nothing_the_sanitizer_lets_through_can_run_script(typed: str) -> None:
    assert script_capable(rendered(cleaned(typed))) == []


def test_links_are_marked_as_readers_and_maths_stays_as_written() -> None:
    html = rendered("See [the code](https://example.org/x) and $a_b*c_d$ and \\(e^{i\\pi}\\)")
    assert '<a href="https://example.org/x" rel="nofollow ugc noopener">the code</a>' in html
    assert "$a_b*c_d$" in html and "\\(e^{i\\pi}\\)" in html


def test_bidi_overrides_and_zero_width_spaces_are_removed_but_joiners_stay() -> None:
    assert cleaned(" a\u202eb\u2066c\u200bd\u200de\r\n") == "abcd\u200de"


def test_raw_html_is_text_and_images_and_headings_are_not_rendered() -> None:
    html = rendered("<b>x</b>\n\n# title\n\n![i](https://e.org/i.png)")
    assert "<b>" not in html and "&lt;b&gt;" in html
    assert "<h1" not in html and "<img" not in html
