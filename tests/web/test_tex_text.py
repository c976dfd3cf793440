"""TeX text commands: HTML on pages, plain text in feeds, maths left to KaTeX."""

from __future__ import annotations

import re

import feedparser
from fastapi.testclient import TestClient

from app.core.names import author_key
from app.core.tex import tex_text

LOOPBENCH = "2512.13713"  # a real abstract: "We introduce \textbf{LoopBench}, a benchmark..."
DREAMER = "2512.14442"  # a real abstract with a command inside maths: "$\textbf{Dreamer}$"


def test_text_commands_become_elements_and_the_rest_stays_text() -> None:
    html = str(tex_text(r"\textbf{Loop} and \emph{not} \textit{\texttt{x}} Q\&A <b>bold</b>"))
    assert html == (
        "<strong>Loop</strong> and <em>not</em> <em><code>x</code></em> Q&amp;A "
        "&lt;b&gt;bold&lt;/b&gt;"
    )


def test_maths_is_left_as_written_for_katex() -> None:
    text = r"a $\textbf{Dreamer}^2$ and \(\emph{y}\) beside \emph{z}"
    assert str(tex_text(text)) == r"a $\textbf{Dreamer}^2$ and \(\emph{y}\) beside <em>z</em>"


def test_hostile_text_inside_a_command_stays_text() -> None:
    html = str(tex_text('\\textbf{<script>alert(1)</script>} \\emph{" onmouseover="x}'))
    assert "<script>" not in html and 'onmouseover="' not in html
    assert html.startswith("<strong>&lt;script&gt;")


def _abstract(page: str) -> str:
    found = re.search(r'<p class="abstract math">(.*?)</p>', page, re.DOTALL)
    assert found, "the paper page shows its abstract"
    return found.group(1)


def test_a_paper_page_renders_its_abstract_s_text_commands(client: TestClient) -> None:
    abstract = _abstract(client.get(f"/papers/{LOOPBENCH}").text)
    assert "<strong>LoopBench</strong>" in abstract
    assert "\\textbf" not in abstract
    inside_maths = _abstract(client.get(f"/papers/{DREAMER}").text)
    assert "$\\textbf{Dreamer}$" in inside_maths


def test_feeds_carry_text_commands_as_plain_text(client: TestClient) -> None:
    key = author_key("Ali Parsaee")
    for fmt in ("atom", "rss"):
        parsed = feedparser.parse(client.get(f"/feeds/author/{key}.{fmt}").content)
        entry = next(e for e in parsed.entries if e.link.endswith(LOOPBENCH))
        assert "We introduce LoopBench, a benchmark" in entry.summary
        assert "\\textbf" not in entry.summary
    body = client.get(f"/feeds/author/{key}.json").json()
    item = next(i for i in body["items"] if i["url"].endswith(LOOPBENCH))
    assert "We introduce LoopBench, a benchmark" in item["content_text"]


def test_a_paper_page_names_its_editions_as_a_reader_says_them(client: TestClient) -> None:
    page = client.get(f"/papers/{LOOPBENCH}").text
    places = dict(re.findall(r'href="/\?period=(\w+)&amp;date=[^"]*">([^<]*)</a>', page))
    assert places.get("day") == "17 Dec 2025"
    assert places.get("week") == "Week of 15 Dec 2025"
    assert "2025-W51" not in page


def test_an_escaped_dollar_is_a_dollar_sign_not_the_edge_of_maths() -> None:
    html = str(tex_text(r"costs \$5 and \textbf{bold}, then \$10 beside $x$"))
    assert html == "costs $5 and <strong>bold</strong>, then $10 beside $x$"
