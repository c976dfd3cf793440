"""Topics: the index at ``/topics``, each topic's page at ``/topics/{id}`` and its follow and
mute buttons (``/topics/{id}/follow``, ``/topics/{id}/mute``), plain form POSTs as every
reader button is (:func:`app.web.routes.reader.post_action`).

The index lists every topic of the recent daily editions under each edition day it was seen
on, newest day first and, within a day, largest first: it answers "what were the subjects of
the last few days", and a topic that carried on is listed again on each day with that day's
label and size.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date
from functools import partial
from typing import NamedTuple

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.models import Edition, TopicDay, TopicStatus
from app.core.refusals import NotFound
from app.services import readers
from app.web import topic_profiles
from app.web.context import ContextDep, SessionDep
from app.web.forms import TopicId
from app.web.routes.reader import PRIVATE, Verb, asked_stance, post_action, signed_in_stances

router = APIRouter(include_in_schema=False)


@router.get("/topics", response_class=HTMLResponse)
def topics_page(request: Request, context: ContextDep, session: SessionDep) -> Response:
    return context.respond(request, "pages/topics.html", topics_index(session))


@router.get("/topics/{topic_id}", response_class=HTMLResponse)
def topic_page(
    request: Request, context: ContextDep, session: SessionDep, topic_id: TopicId
) -> Response:
    page = topic_profiles.topic_page(session, topic_id)
    if page is None:
        raise NotFound(f"topic {topic_id} is not stored here")
    stances = signed_in_stances(request, context, session)
    if stances is None:
        return context.respond(request, "pages/topic.html", page)
    page = replace(page, stance=stances.on_topic(topic_id))
    return context.respond(request, "pages/topic.html", page, headers=PRIVATE)


@router.post("/topics/{topic_id}/{verb}")
async def topic_stance(
    request: Request, context: ContextDep, topic_id: TopicId, verb: Verb
) -> Response:
    stance = await asked_stance(request, verb)
    act = partial(readers.set_topic_stance, context, topic=topic_id, stance=stance)
    done = {"topic": topic_id, "stance": stance}
    return await post_action(request, context, act, done, f"/topics/{topic_id}")


RECENT_EDITIONS = 7


class IndexedTopic(NamedTuple):
    """One topic as seen on one day: what its link on the index shows."""

    id: int
    label: str
    size: int
    status: TopicStatus


class TopicsOfDay(NamedTuple):
    day: date
    topics: list[IndexedTopic]


@dataclass(frozen=True)
class TopicsIndexPage:
    days: list[TopicsOfDay]


def topics_index(session: Session, editions: int = RECENT_EDITIONS) -> TopicsIndexPage:
    """The topics of the newest ``editions`` daily editions, newest day first."""
    days = list(
        session.scalars(
            select(Edition.edition_date)
            .where(Edition.period == "day")
            .distinct()
            .order_by(Edition.edition_date.desc())
            .limit(editions)
        )
    )
    rows = session.execute(
        select(TopicDay.day, TopicDay.topic_id, TopicDay.label, TopicDay.size, TopicDay.status)
        .where(TopicDay.day.in_(days))
        .order_by(TopicDay.day.desc(), TopicDay.size.desc(), TopicDay.topic_id)
    ).all()
    by_day: dict[date, list[IndexedTopic]] = {day: [] for day in days}
    for row in rows:
        by_day[row.day].append(
            IndexedTopic(id=row.topic_id, label=row.label, size=row.size, status=row.status)
        )
    return TopicsIndexPage([TopicsOfDay(day, topics) for day, topics in by_day.items() if topics])
