"""A reader's comment, from what they typed to the HTML a page shows (pure).

What is typed is cleaned first (:func:`cleaned`): NFC, line ends as ``\\n``, and the
characters that make text read otherwise than it is stored are removed: bidirectional
embeddings, overrides and isolates (a comment that shows one thing and says another), the
zero-width space, word joiner and byte-order mark, and control characters other than line
ends and tabs. The joiners that scripts need (ZWJ, ZWNJ) stay.

Then :func:`rendered` turns a small Markdown subset into HTML with markdown-it-py
(CommonMark: paragraphs, emphasis, links, inline and fenced code, quotes and lists; no raw
HTML, images or headings) and cleans that with nh3 against an allow-list, so what leaves is
safe whatever markdown-it does: only the tags below, ``href`` on links with an http, https or
mailto URL, and ``rel="nofollow ugc noopener"`` on every link. Maths (``$...$``,
``$$...$$``, ``\\(...\\)``, ``\\[...\\]``) is kept as written, escaped, for the page's KaTeX
(``static/math.js``), so Markdown's emphasis never eats a subscript.
"""

from __future__ import annotations

import re
import unicodedata

import nh3
from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline

ALLOWED_TAGS = frozenset(
    {"p", "br", "em", "strong", "code", "pre", "blockquote", "a", "ul", "ol", "li"}
)
ALLOWED_ATTRIBUTES = {"a": {"href"}}
URL_SCHEMES = frozenset({"http", "https", "mailto"})
LINK_REL = "nofollow ugc noopener"
# Bidi embeddings, overrides and isolates; zero-width space, word joiner, BOM; and control
# characters except tab and line feed.
_INVISIBLE = re.compile(
    "[\u202a-\u202e\u2066-\u2069\u200b\u2060\ufeff\u0000-\u0008\u000b-\u001f\u007f-\u009f]"
)
# Maths delimiters, longest first: the closing one of each pair.
_MATH = (("$$", "$$"), ("\\[", "\\]"), ("\\(", "\\)"), ("$", "$"))


def cleaned(typed: str) -> str:
    """What was typed, without the characters that hide what it says, trimmed."""
    text = unicodedata.normalize("NFC", typed.replace("\r\n", "\n").replace("\r", "\n"))
    return _INVISIBLE.sub("", text).strip()


def _math(state: StateInline, silent: bool) -> bool:
    """Maths kept as written (text, so escaped) until its closing delimiter."""
    for opening, closing in _MATH:
        if not state.src.startswith(opening, state.pos):
            continue
        end = state.src.find(closing, state.pos + len(opening))
        if end <= state.pos + len(opening):
            return False
        if not silent:
            token = state.push("text", "", 0)
            token.content = state.src[state.pos : end + len(closing)]
        state.pos = end + len(closing)
        return True
    return False


def _parser() -> MarkdownIt:
    parser = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    parser.disable(["image", "heading", "lheading", "html_block", "html_inline", "hr"])
    parser.inline.ruler.before("escape", "math", _math)
    return parser


_MARKDOWN = _parser()


def rendered(text: str) -> str:
    """The cleaned text's Markdown as HTML that can hold no script (nh3's allow-list)."""
    return nh3.clean(
        _MARKDOWN.render(text),
        tags=set(ALLOWED_TAGS),
        attributes={tag: set(names) for tag, names in ALLOWED_ATTRIBUTES.items()},
        url_schemes=set(URL_SCHEMES),
        link_rel=LINK_REL,
        strip_comments=True,
    )


def link_count(text: str) -> int:
    """How many links the text's Markdown makes (bare addresses included)."""
    return len(re.findall(r"https?://|mailto:|www\.", text, flags=re.IGNORECASE))
