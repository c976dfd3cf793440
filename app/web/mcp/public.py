"""The MCP tools anyone may call: editions, search, papers, topics, people, the radar and the
week in review, read as the JSON API and the pages read them (``app.web.queries``,
``app.web.profiles``), each in one short read-only session.

Every argument is typed and bounded in its schema; what a tool cannot find or understand is
a refusal (``app.core.refusals``) that the server turns into a tool error in words.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from pydantic import Field
from sqlalchemy.orm import Session

from app.core.arxiv_ids import parse_arxiv_id
from app.core.models import Edition
from app.core.periods import span
from app.core.refusals import NotFound
from app.services.claims import find_person, is_hidden
from app.services.search import SearchSort
from app.web import api_models as api
from app.web import profiles, queries, topic_profiles
from app.web.api_shape import daily_item, explanation, paper_detail, search_result
from app.web.context import WebContext
from app.web.emerging import EmergingCard, emerging_page
from app.web.forms import MAX_ID, key_label, parse_day, parse_week
from app.web.limits import client_key
from app.web.mcp import shapes
from app.web.routes.search import run_search
from app.web.view_models import Card, Signals, code_url, links
from app.web.week_review import week_review_page

ArxivId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=40,
        description="An arXiv identifier: 2512.14133, 2512.14133v2, hep-th/9901001",
    ),
]
Day = Annotated[
    str | None, Field(max_length=10, description="A day, YYYY-MM-DD; absent: the newest")
]
Week = Annotated[
    str | None, Field(max_length=8, description="An ISO week, YYYY-Www; absent: the newest")
]
Category = Annotated[str | None, Field(max_length=40, description="An arXiv category: cs.LG")]
Period = Literal["day", "week", "month"]
# The trending page's parameter naming each period's edition.
_PARAMETER = {"day": "date", "week": "week", "month": "month"}


@dataclass(frozen=True)
class PublicTools:
    """The tools' implementations over one deployment's shared context."""

    context: WebContext

    def trending(
        self,
        period: Period = "day",
        day: Day = None,
        category: Category = None,
        topic: Annotated[int | None, Field(ge=1, le=MAX_ID)] = None,
        limit: Annotated[int, Field(ge=1, le=100)] = 20,
    ) -> shapes.EditionAnswer:
        """The trending arXiv papers of a day, week or month edition, best first, each with
        its chance of trending on Hugging Face and the reasons for its place. `day` picks the
        edition holding that day (absent: the newest); `category` (cs.LG) and `topic` (a
        topic's id, from `list_topics`) keep only the papers in them."""
        key = span(period, parse_day(day, "day")).key if day else None
        with reading(self.context) as session:
            edition = self.context.edition(session, period, key)
            if edition is None:
                raise NotFound(f"no {period} edition" + (f" holds {day}" if day else " yet"))
            cards = queries.edition_cards(session, edition)
        cards = [card for card in cards if _kept(card, category, topic)]
        return shapes.EditionAnswer(
            period=period,
            edition=_label(edition),
            page_url=self._site(f"/?{_PARAMETER[period]}={_label(edition)}"),
            papers=[daily_item(card, self._site("")) for card in cards[:limit]],
        )

    def search(
        self,
        ctx: Context,
        query: Annotated[
            str,
            Field(
                min_length=1,
                max_length=1000,
                description="Words to find; `-word` leaves out papers that mention the word",
            ),
        ],
        category: Category = None,
        since: Day = None,
        until: Day = None,
        sort: SearchSort = SearchSort.relevance,
        page: Annotated[int, Field(ge=1, le=200)] = 1,
        limit: Annotated[int, Field(ge=1, le=50)] = 10,
    ) -> shapes.SearchAnswer:
        """Search every stored paper by words and meaning, best match first (or newest
        first). Filters: an arXiv `category`, announced `since` and `until` (YYYY-MM-DD);
        `-word` in the query leaves out papers mentioning it. `total` says how many match;
        `page` and `limit` walk through them."""
        found = run_search(self.context, client_of(ctx), query, since, until, category)
        with reading(self.context) as session:
            cards = queries.plain_cards(session, found.page(sort, page, limit))
        offset = (page - 1) * limit
        return shapes.SearchAnswer(
            total=len(found.matches),
            page=page,
            papers=[
                search_result(c, self._site("")).model_copy(update={"rank": offset + c.rank})
                for c in cards
            ],
        )

    def paper(self, arxiv_id: ArxivId) -> shapes.PaperAnswer:
        """One paper: its abstract, authors, Hugging Face's signals, its topic, every edition
        it ranked in (newest first) with its chance of trending and the reasons, and links to
        arXiv, its PDF, Hugging Face and its code."""
        base = parse_arxiv_id(arxiv_id).base
        with reading(self.context) as session:
            found = queries.papers(session, [base]).get(base)
            if found is None:
                raise NotFound(f"paper {base} is not stored here")
            signals = queries.signals(session, [base]).get(base, Signals())
            places = queries.appearances(session, base)
            topic = queries.paper_topic(session, base)
            detail = paper_detail(found, signals, topic, places, self._site(""))
        kept = links(base)
        return shapes.PaperAnswer(
            paper=detail,
            links=shapes.Links(
                paperboy=self._site(f"/papers/{base}"),
                abstract=kept["abstract"],
                pdf=kept["pdf"],
                hugging_face=kept["hugging_face"] if signals.on_hugging_face else None,
                code=code_url(found, signals),
            ),
            chance=places[0].chance if places else None,
            explanation=explanation(places[0].reasons) if places else [],
        )

    def similar(
        self, arxiv_id: ArxivId, limit: Annotated[int, Field(ge=1, le=20)] = 6
    ) -> shapes.PapersAnswer:
        """Papers closest in meaning to a stored paper (itself left out), closest first."""
        base = parse_arxiv_id(arxiv_id).base
        ids = self.context.search.similar(base, limit)  # its connection given back first
        with reading(self.context) as session:
            if not queries.papers(session, [base]):
                raise NotFound(f"paper {base} is not stored here")
            return shapes.PapersAnswer(
                papers=[
                    search_result(card, self._site(""))
                    for card in queries.plain_cards(session, ids)
                ]
            )

    def topics(self) -> shapes.TopicsAnswer:
        """Every topic with its latest label, size, status and momentum (ids for `topic`)."""
        with reading(self.context) as session:
            return shapes.TopicsAnswer(topics=topic_profiles.topics_json(session))

    def topic(self, topic_id: Annotated[int, Field(ge=1, le=MAX_ID)]) -> api.TopicProfile:
        """One topic: its label, key phrases, size per day, papers by day, related topics."""
        with reading(self.context) as session:
            found = topic_profiles.topic_json(session, topic_id)
        if found is None:
            raise NotFound(f"topic {topic_id} is not stored here")
        return found

    def person(self, person_id: Annotated[int, Field(ge=1, le=MAX_ID)]) -> api.AuthorProfile:
        """One person behind an author name (ids appear in an author's `people`): their
        papers, topics, collaborators and organisations. A person whose papers moved to
        another is answered as the one holding them now."""
        with reading(self.context) as session:
            return _person(session, person_id)

    def radar(self, week: Week = None) -> shapes.RadarAnswer:
        """The emerging radar: research directions growing faster than their past, flagged
        for a week (absent: the newest), each with its new phrases and founding papers."""
        monday = parse_week(week) if week else None
        with reading(self.context) as session:
            page = emerging_page(session, monday, self.context.settings.embedding_model)
        return shapes.RadarAnswer(
            week=page.week.isoformat() if page.week else None,
            weeks=[one.isoformat() for one in page.weeks],
            emerging=[_radar_topic(card) for card in page.cards],
            note=page.too_short,
        )

    def week_review(self, week: Week = None) -> shapes.WeekReviewAnswer:
        """The week in review: what trended in a week (absent: the newest written up), what
        the ranking expected of it, and how that turned out."""
        monday = parse_week(week) if week else None
        with reading(self.context) as session:
            page = week_review_page(session, monday)
        return shapes.WeekReviewAnswer(
            week=page.week.isoformat() if page.week else None,
            weeks=[one.isoformat() for one in page.weeks],
            review=page.review,
        )

    def _site(self, path: str) -> str:
        return self.context.settings.public_base_url.rstrip("/") + path


def reading(context: WebContext) -> Session:
    """A short read-only session for one tool call: a tool runs outside FastAPI's routes, so
    no request session comes with it (closed by the ``with`` that opens it)."""
    return context.sessions()


def client_of(ctx: Context) -> str:
    """Who calls, as per-client limits count them: the HTTP client's address, or the one
    assistant that started the stdio server."""
    request = ctx.request_context.request
    client = getattr(request, "client", None)
    return client_key(client.host) if client is not None else "stdio"


def _kept(card: Card, category: str | None, topic: int | None) -> bool:
    if category and category not in card.paper.categories:
        return False
    return topic is None or (card.topic is not None and card.topic.id == topic)


def _label(edition: Edition) -> str:
    day: date = edition.edition_date
    return key_label(edition.period, day)


def _person(session: Session, person_id: int) -> api.AuthorProfile:
    found = find_person(session, person_id)
    if found.moved_to is not None:
        found = find_person(session, found.moved_to)
    shown = found.person
    body = None
    if shown is not None and not is_hidden(session, shown):
        body = profiles.author_json(session, shown.author_key, shown.id)
    if body is None:
        raise NotFound(f"no person {person_id} is shown here")
    return body


def _radar_topic(card: EmergingCard) -> shapes.RadarTopic:
    return shapes.RadarTopic(
        label=card.label,
        new_phrases=card.new_phrases,
        week_share=card.week_share,
        baseline_share=card.baseline_share,
        topic_id=card.topic_id,
        founding=[shapes.RadarPaper(arxiv_id=p.arxiv_id, title=p.title) for p in card.founding],
    )
