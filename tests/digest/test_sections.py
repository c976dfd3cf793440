"""A digest's sections over a whole day: followed, for you, trending; and how a mail shows
them."""

import email
import re
from datetime import UTC, datetime
from email.message import EmailMessage
from email.policy import default

import numpy as np

from app.core.config import Settings
from app.core.models import EditionKey, SubscriberStatus
from digest.compose import digest_message, section_heading
from digest.ledger import Reader
from digest.sections import FOLLOWED_SHOWN, TRENDING_SHOWN, Sectioned, sectioned_picks
from digest.selection import EditionPaper, EditionView, ListSection, Pick, Section, Taste
from tests.digest.editions import DAY
from tests.digest.test_selection import paper
from tests.digest.test_sending import body


def day(papers: list[EditionPaper], edition_size: int) -> EditionView:
    """A day of papers, best ranked first, whose first ``edition_size`` are the edition."""
    vectors = np.zeros((len(papers), 8), dtype=np.float32)
    vectors[np.arange(len(papers)), np.arange(len(papers)) % 8] = 1.0
    return EditionView(papers, vectors, edition_size=edition_size)


def sections(view: EditionView, taste: Taste) -> list[tuple[str, str]]:
    chosen = sectioned_picks(view, taste, max_per_topic=5, exclusion_cosine=0.5)
    return [(pick.section, pick.paper.arxiv_id[-2:]) for pick in chosen.picks]


def test_a_followed_authors_paper_far_below_the_edition_opens_the_digest() -> None:
    papers = [paper(n) for n in range(1, 31)]
    papers[25] = paper(26, category="q-bio.NC", author="jane-doe")
    view = day(papers, edition_size=10)
    taste = Taste(
        max_items=3, categories=frozenset({"cs.LG"}), followed_authors=frozenset({"jane-doe"})
    )
    chosen = sectioned_picks(view, taste, max_per_topic=5, exclusion_cosine=0.5)
    assert [(p.section, p.paper.arxiv_id[-2:]) for p in chosen.picks] == [
        (Section.FOLLOWED, "26"),
        (Section.FOR_YOU, "01"),
        (Section.FOR_YOU, "02"),
        (Section.FOR_YOU, "03"),
        (Section.TRENDING, "04"),
        (Section.TRENDING, "05"),
        (Section.TRENDING, "06"),
    ]
    assert chosen.picks[0].reason == "by Jane-Doe, whom you follow"
    assert chosen.followed_left_out == 0


def test_a_muted_topic_holds_even_for_a_followed_author() -> None:
    papers = [paper(n) for n in range(1, 6)]
    papers[3] = paper(4, topic=9, author="jane-doe")
    taste = Taste(
        max_items=2, followed_authors=frozenset({"jane-doe"}), muted_topics=frozenset({9})
    )
    assert (Section.FOLLOWED, "04") not in sections(day(papers, 5), taste)
    assert "04" not in [arxiv_id for _, arxiv_id in sections(day(papers, 5), taste)]


def test_past_its_length_the_followed_section_says_how_many_more_there_were() -> None:
    papers = [paper(n, author="prolific") for n in range(1, FOLLOWED_SHOWN + 6)]
    taste = Taste(max_items=3, followed_authors=frozenset({"prolific"}))
    chosen = sectioned_picks(day(papers, 10), taste, max_per_topic=50, exclusion_cosine=0.5)
    followed = [pick for pick in chosen.picks if pick.section == Section.FOLLOWED]
    assert len(followed) == FOLLOWED_SHOWN
    # Five more were followed: the next section takes three of them first, two are left out.
    assert [p.section for p in chosen.picks[FOLLOWED_SHOWN:]] == [Section.FOR_YOU] * 3
    assert chosen.followed_left_out == 2


def test_no_paper_is_in_two_sections_and_trending_comes_from_the_edition_only() -> None:
    papers = [paper(n, topic=n % 3) for n in range(1, 41)]
    taste = Taste(max_items=5)
    listed = sections(day(papers, edition_size=6), taste)
    ids = [arxiv_id for _, arxiv_id in listed]
    assert len(ids) == len(set(ids))
    trending = [arxiv_id for section, arxiv_id in listed if section == Section.TRENDING]
    assert len(trending) <= TRENDING_SHOWN
    assert all(int(arxiv_id) <= 6 for arxiv_id in trending)


def test_papers_past_the_edition_gain_nothing_from_trending() -> None:
    view = day([paper(n) for n in range(1, 21)], edition_size=10)
    assert view.trending[:10].tolist() == [1.0 - i / 10 for i in range(10)]
    assert view.trending[10:].tolist() == [0.0] * 10


def test_a_mail_heads_each_section_and_says_how_many_followed_papers_it_left_out(
    mail_settings: Settings,
) -> None:
    reader = Reader(
        id=1,
        email="ada@example.org",
        link_key="k",
        status=SubscriberStatus.ACTIVE,
        categories=[],
        interests="",
        exclusions="",
        followed_topics=[],
        muted_topics=[],
        followed_authors=["jane-doe"],
        muted_authors=[],
        max_items=1,
        send_empty=False,
        failure_count=0,
    )
    picks = [
        Pick(paper(1, author="jane-doe"), "by Jane-Doe, whom you follow", Section.FOLLOWED),
        Pick(paper(2), "#2 trending", Section.FOR_YOU),
        Pick(paper(3), "#3 trending", Section.TRENDING),
    ]
    message = digest_message(
        mail_settings, reader, EditionKey("day", DAY), Sectioned(picks, 2), datetime.now(UTC)
    )
    mail = email.message_from_bytes(message.raw, policy=default)
    assert isinstance(mail, EmailMessage)
    text = body(mail, "plain")
    headings = re.findall(r"^== (.+) ==$", text, re.M)
    assert headings == ["From authors and topics you follow", "Picked for you", "Trending today"]
    said = "2 more papers by authors and topics you follow were left out to keep this mail short."
    assert said in " ".join(text.split())
    assert said in " ".join(body(mail, "html").split())
    alone = digest_message(
        mail_settings, reader, EditionKey("day", DAY), Sectioned(picks[1:2]), datetime.now(UTC)
    )
    one = email.message_from_bytes(alone.raw, policy=default)
    assert isinstance(one, EmailMessage)
    only = body(one, "plain")
    assert "== " not in only and "left out" not in only  # one section: no heading


def test_a_followed_lists_new_papers_make_their_own_section_whatever_their_day() -> None:
    papers = [paper(n) for n in range(1, 11)]
    view = day(papers, edition_size=10)
    older = paper(90, category="q-bio.NC")  # on the list, announced long before this day
    listed = ListSection("Journal club", (older, papers[0], paper(91)))
    taste = Taste(
        max_items=2,
        categories=frozenset({"cs.LG"}),
        listed=(listed,),
        hidden=frozenset({"2603.00091"}),
    )
    chosen = sectioned_picks(view, taste, max_per_topic=5, exclusion_cosine=0.5)
    assert [(p.section, p.paper.arxiv_id[-2:]) for p in chosen.picks] == [
        (Section.LISTED, "90"),
        (Section.LISTED, "01"),
        (Section.FOR_YOU, "02"),
        (Section.FOR_YOU, "03"),
        (Section.TRENDING, "04"),
        (Section.TRENDING, "05"),
        (Section.TRENDING, "06"),
    ]
    assert chosen.picks[0].reason == "added to the list “Journal club” that you follow"
    assert section_heading(chosen.picks[0], "day") == "New on the list “Journal club”"
