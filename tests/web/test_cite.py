"""A paper cited: its page's ``citation_*`` tags read by a real metadata parser, and each Cite
format read back by a real parser (pybtex, rispy, the CSL-JSON schema) or checked for the
reference's parts, hostile titles (markup, TeX specials, braces, Unicode, very long) included."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from datetime import UTC, date, datetime
from typing import Any

import metadata_parser
import pytest
import rispy
from fastapi.testclient import TestClient
from hypothesis import example, given, settings
from hypothesis import strategies as st
from jsonschema import Draft7Validator

from app.web.citations import one_line
from app.web.citing import STYLES, citation_tags, cite, csl_json_item, reference
from app.web.view_models import PaperFacts
from tests.conftest import FIXTURES
from tests.web.conftest import (
    HOSTILE_AUTHOR,
    HOSTILE_ID,
    HOSTILE_SUBMITTED_AT,
    HOSTILE_TITLE,
    OLD_STYLE_ID,
)
from tests.web.test_bibtex import assert_reads_back

CSL_SCHEMA = Draft7Validator(json.loads((FIXTURES / "web" / "csl-data.schema.json").read_text()))
HOSTILE_TITLES = (
    HOSTILE_TITLE,
    '</script><script>alert("x")</script> & "quotes" \'too\'',
    r"Closing } braces { and \textbf{bold} $x_1^2$ 100% & #1 ~ \\ \end{document}",
    "}, note = {owned",
    "Ψ-ReLU für Schrödinger — 日本語 العربية \u202eright-to-left\u202c",
    "A very long title " * 120,
    "line one\nTY  - JOUR\nER  - ",
)
AUTHORS = ("Ashish Vaswani", "Johannes Diderik van der Waals", "ATLAS Collaboration")


def _paper(title: str, authors: tuple[str, ...] = AUTHORS) -> PaperFacts:
    return PaperFacts(
        arxiv_id="2512.00001",
        title=title,
        abstract="An abstract with <b>markup</b>.",
        authors=authors,
        categories=("cs.LG",),
        primary_category="cs.LG",
        comment=None,
        announced_on=date(2025, 12, 19),
        version=3,
        submitted_at=datetime(2025, 12, 17, 9, 0, tzinfo=UTC),
        updated_at=datetime(2026, 1, 5, 9, 0, tzinfo=UTC),
    )


def _tags(page: str) -> dict[str, Any]:
    """The page head's ``citation_*`` tags as metadata_parser reads them (a list if repeated)."""
    parsed = metadata_parser.MetadataParser(html=page, search_head_only=True)
    found: dict[str, Any] = parsed.parsed_result.metadata["meta"]
    return {name: value for name, value in found.items() if name.startswith("citation_")}


def test_the_tags_are_what_google_scholar_and_arxiv_ask_for() -> None:
    tags = dict(citation_tags(_paper("Attention")))
    assert [value for name, value in citation_tags(_paper("x")) if name == "citation_author"] == [
        "Vaswani, Ashish",
        "van der Waals, Johannes Diderik",
        "ATLAS Collaboration",
    ]
    assert tags == tags | {
        "citation_title": "Attention",
        "citation_date": "2025/12/17",  # the first version's day, as arXiv's own pages
        "citation_publication_date": "2025/12/17",  # the date Google Scholar requires
        "citation_online_date": "2026/01/05",  # the latest version's
        "citation_pdf_url": "https://arxiv.org/pdf/2512.00001",
        "citation_arxiv_id": "2512.00001",
        "citation_abstract": "An abstract with <b>markup</b>.",
    }


def test_a_paper_with_no_known_date_has_no_date_tags_rather_than_a_guess() -> None:
    undated = replace(_paper("Old"), announced_on=None, submitted_at=None, updated_at=None)
    names = {name for name, _ in citation_tags(undated)}
    assert not names & {"citation_date", "citation_publication_date", "citation_online_date"}
    assert {"citation_title", "citation_author", "citation_arxiv_id"} <= names


def test_a_papers_page_carries_its_tags_and_a_hostile_title_stays_inert(
    client: TestClient,
) -> None:
    page = client.get(f"/papers/{HOSTILE_ID}").text
    tags = _tags(page)
    assert tags["citation_title"] == HOSTILE_TITLE
    assert tags["citation_author"] == ["Pérez, José", HOSTILE_AUTHOR, "Perez, Jose"]
    assert tags["citation_date"] == HOSTILE_SUBMITTED_AT.strftime("%Y/%m/%d")
    assert tags["citation_publication_date"] == tags["citation_date"]
    assert tags["citation_arxiv_id"] == HOSTILE_ID
    assert tags["citation_pdf_url"] == f"https://arxiv.org/pdf/{HOSTILE_ID}"
    head = page.split("</head>")[0]
    # The title's markup is text in an attribute: no element, no script it could open.
    assert "<script>alert" not in head and "<img" not in head
    assert 'content="&lt;script&gt;alert(1)&lt;/script&gt; &#34;&gt;&lt;img' in head


def test_the_cite_menu_is_on_the_page_without_a_script(client: TestClient) -> None:
    page = client.get(f"/papers/{HOSTILE_ID}").text
    menu = page.split('<details class="cite" id="cite">')[1].split("</details>")[0]
    assert "<summary>Cite</summary>" in menu
    for suffix in ("bib", "ris", "json", "txt?style=apa", "txt?style=ieee"):
        assert f'href="/papers/{HOSTILE_ID}/cite.{suffix}"' in menu
    assert "<script>alert(1)</script>" not in menu  # the references hold the title as text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in menu
    card = client.get("/").text
    assert re.search(r'<a href="/papers/[^"#]+#cite">Cite</a>', card)


@pytest.mark.parametrize("title", HOSTILE_TITLES)
def test_every_format_reads_back_with_a_hostile_title(title: str) -> None:
    paper = _paper(title)
    cited = cite(paper)
    assert_reads_back([paper], cited.bibtex)
    [entry] = rispy.loads(cited.ris)
    assert entry["title"] == one_line(title) and entry["id"] == paper.arxiv_id
    assert entry["authors"] == ["Vaswani, Ashish", "van der Waals, Johannes Diderik", *AUTHORS[2:]]
    assert entry["date"] == "2025/12/17" and entry["year"] == "2025"
    items = json.loads(cited.csl_json)
    CSL_SCHEMA.validate(items)
    assert items[0]["title"] == title and items[0]["issued"] == {"date-parts": [[2025, 12, 17]]}
    for written in cited.references:
        assert_a_reference(paper, written.text)


def assert_a_reference(paper: PaperFacts, text: str) -> None:
    assert one_line(paper.title) in text
    for family in ("Vaswani", "van der Waals", "ATLAS Collaboration"):
        assert family in text
    assert "2025" in text and paper.arxiv_id in text


@settings(max_examples=40, deadline=None)
@given(title=st.text(min_size=1, max_size=300), name=st.text(min_size=1, max_size=60))
@example(title="{", name="}")
def test_any_title_and_name_give_valid_csl_json_and_a_reference(title: str, name: str) -> None:
    paper = _paper(title, (name, *AUTHORS))
    CSL_SCHEMA.validate(json.loads(csl_json_item(paper)))
    for style in STYLES:
        assert paper.arxiv_id in reference(paper, style)


def test_each_download_has_its_type_and_reads_back(client: TestClient) -> None:
    base = f"/papers/{HOSTILE_ID}/cite"
    bib = client.get(f"{base}.bib")
    assert bib.headers["content-type"] == "application/x-bibtex; charset=utf-8"
    assert bib.headers["content-disposition"] == f'attachment; filename="arXiv-{HOSTILE_ID}.bib"'
    assert f"@misc{{arXiv:{HOSTILE_ID}," in bib.text
    ris = client.get(f"{base}.ris")
    assert ris.headers["content-type"].startswith("application/x-research-info-systems")
    [entry] = rispy.loads(ris.text)
    assert entry["title"] == HOSTILE_TITLE and HOSTILE_AUTHOR in entry["authors"]
    csl = client.get(f"{base}.json")
    assert csl.headers["content-type"] == "application/vnd.citationstyles.csl+json"
    CSL_SCHEMA.validate(csl.json())
    for style in STYLES:
        text = client.get(f"{base}.txt", params={"style": style})
        assert text.headers["content-type"] == "text/plain; charset=utf-8"
        assert text.headers["content-disposition"].startswith("inline")
        assert HOSTILE_TITLE in text.text and HOSTILE_ID in text.text and "2025" in text.text
    assert client.get(f"{base}.txt").text == client.get(f"{base}.txt?style=apa").text


def test_an_old_style_identifier_is_cited_and_a_version_goes_to_the_paper(
    client: TestClient,
) -> None:
    old = client.get(f"/papers/{OLD_STYLE_ID}/cite.ris")
    assert old.status_code == 200
    assert rispy.loads(old.text)[0]["id"] == OLD_STYLE_ID
    assert 'filename="arXiv-hep-th-9901001.ris"' in old.headers["content-disposition"]
    versioned = client.get(f"/papers/{HOSTILE_ID}v2/cite.txt?style=ieee", follow_redirects=False)
    assert versioned.status_code == 308
    assert versioned.headers["location"] == f"/papers/{HOSTILE_ID}/cite.txt?style=ieee"


def test_a_bad_citation_request_is_refused_clearly(client: TestClient) -> None:
    unknown_style = client.get(f"/papers/{HOSTILE_ID}/cite.txt?style=chicago")
    assert unknown_style.status_code == 422  # a value none of those it may take
    assert "style is one of: apa, ieee" in unknown_style.text
    unknown_format = client.get(f"/papers/{HOSTILE_ID}/cite.docx")
    assert unknown_format.status_code == 404 and ".bib, .ris, .json, .txt" in unknown_format.text
    assert client.get("/papers/2512.99999/cite.bib").status_code == 404
    assert client.get("/papers/not-an-id/cite.bib").status_code == 404
    # The page is still there, whatever was asked of its citations.
    assert client.get(f"/papers/{HOSTILE_ID}").status_code == 200
