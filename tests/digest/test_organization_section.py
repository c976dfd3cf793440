"""Followed organizations as a digest section ("From organizations you follow"): over a day
whose papers are given, and through a whole run that reaches a real SMTP server."""

from dataclasses import replace
from datetime import UTC, datetime

from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings
from app.core.db import session_scope
from app.core.models import HfDailyPaper
from digest.sections import ORGANIZATIONS_SHOWN, sectioned_picks
from digest.selection import EditionPaper, Section, Taste
from digest.sending import send_digests
from tests.conftest import Database
from tests.digest.conftest import NOW, Smtp
from tests.digest.editions import DAY, add_subscriber, store_edition
from tests.digest.test_search_sections import picked
from tests.digest.test_sections import day
from tests.digest.test_selection import paper
from tests.digest.test_sending import body

SEED = ("ByteDance-Seed", "ByteDance Seed")


def under(n: int, organization: tuple[str, str] | None = SEED, **kinds: object) -> EditionPaper:
    slug, name = organization or (None, None)
    return replace(paper(n, **kinds), organization=slug, organization_name=name)  # type: ignore[arg-type]


def test_a_followed_organizations_papers_are_a_section_after_the_followed_ones() -> None:
    papers = [paper(n) for n in range(1, 21)]
    papers[14] = under(15)
    papers[16] = under(17, author="jane-doe")  # followed by name too: in the first section
    papers[18] = under(19, ("Other-Lab", "Other Lab"))
    view = day(papers, edition_size=5)
    taste = Taste(
        max_items=1,
        followed_authors=frozenset({"jane-doe"}),
        followed_organizations=frozenset({"ByteDance-Seed"}),
    )
    chosen = sectioned_picks(view, taste, max_per_topic=5, exclusion_cosine=0.5)
    assert [(s, n) for s, _, n in picked(view, taste)][:3] == [
        (Section.FOLLOWED, "17"),
        (Section.ORGANIZATIONS, "15"),
        (Section.FOR_YOU, "01"),
    ]
    assert chosen.picks[1].reason == "from ByteDance Seed, which you follow"
    assert chosen.organizations_left_out == 0


def test_the_section_holds_a_few_and_counts_the_rest_and_mutes_hold_in_it() -> None:
    papers = [under(n, category="q-bio.NC") for n in range(1, 31)]
    papers[0] = under(1, topic=9)
    taste = Taste(
        max_items=1,
        categories=frozenset({"cs.LG"}),  # a follow is asked for by name: categories pass
        muted_topics=frozenset({9}),
        followed_organizations=frozenset({"ByteDance-Seed"}),
    )
    chosen = sectioned_picks(
        day(papers, edition_size=10), taste, max_per_topic=5, exclusion_cosine=0.5
    )
    organized = [p for p in chosen.picks if p.section == Section.ORGANIZATIONS]
    assert len(organized) == ORGANIZATIONS_SHOWN
    assert "2603.00001" not in {p.paper.arxiv_id for p in chosen.picks}  # its topic is muted
    assert chosen.organizations_left_out == len(papers) - 1 - ORGANIZATIONS_SHOWN


def test_a_reader_following_no_organization_gets_no_such_section() -> None:
    papers = [under(n) for n in range(1, 6)]
    assert Section.ORGANIZATIONS not in {s for s, _, _ in picked(day(papers, 3), Taste(2))}


def _submitted(sessions: sessionmaker[Session], arxiv_id: str, slug: str, name: str) -> None:
    with session_scope(sessions) as session:
        session.add(
            HfDailyPaper(
                daily_date=DAY,
                arxiv_id=arxiv_id,
                upvotes=3,
                ai_keywords=[],
                organization_name=slug,
                organization_fullname=name,
                fetched_at=datetime(2026, 3, 2, 12, tzinfo=UTC),
            )
        )


def test_a_followed_organizations_new_paper_reaches_the_reader_through_smtp(
    database: Database, mail_settings: Settings, smtp: Smtp
) -> None:
    store_edition(database.sessions)
    _submitted(database.sessions, "2603.00003", *SEED)
    _submitted(database.sessions, "2603.00002", "Other-Lab", "Other Lab")
    add_subscriber(
        database.sessions, "ada@example.org", max_items=1, followed_organizations=[SEED[0]]
    )
    add_subscriber(database.sessions, "bob@example.org", max_items=1)
    assert send_digests(mail_settings, database.sessions, DAY, NOW).counts["sent"] == 2
    [mail] = smtp.handler.to("ada@example.org")
    text = body(mail, "plain")
    assert "== From organizations you follow ==\n\n1. Protein folding with diffusion\n" in text, (
        text
    )
    assert "Why: from ByteDance Seed, which you follow" in text
    assert text.index("Protein folding") < text.index("== Picked for you ==")
    assert "<h2" in body(mail, "html") and "From organizations you follow</h2>" in body(
        mail, "html"
    )
    [other] = smtp.handler.to("bob@example.org")
    assert "organizations you follow" not in body(other, "plain")
