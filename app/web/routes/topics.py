"""Topics: the index at ``/topics``, each topic's page at ``/topics/{id}`` and its follow and
mute buttons (``/topics/{id}/follow``, ``/topics/{id}/mute``), plain form POSTs as every
reader button is (:func:`app.web.routes.reader.post_action`)."""

from __future__ import annotations

from functools import partial

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse

from app.core.refusals import NotFound
from app.services import readers
from app.web import profiles
from app.web.context import ContextDep, SessionDep
from app.web.params import TopicId
from app.web.routes.reader import Verb, asked_stance, post_action
from app.web.topic_index import topics_index

router = APIRouter(include_in_schema=False)


@router.get("/topics", response_class=HTMLResponse)
def topics_page(request: Request, context: ContextDep, session: SessionDep) -> Response:
    return context.respond(request, "pages/topics.html", topics_index(session))


@router.get("/topics/{topic_id}", response_class=HTMLResponse)
def topic_page(
    request: Request, context: ContextDep, session: SessionDep, topic_id: TopicId
) -> Response:
    page = profiles.topic_page(session, topic_id)
    if page is None:
        raise NotFound(f"topic {topic_id} is not stored here")
    return context.respond(request, "pages/topic.html", page)


@router.post("/topics/{topic_id}/{verb}")
async def topic_stance(
    request: Request, context: ContextDep, topic_id: TopicId, verb: Verb
) -> Response:
    stance = await asked_stance(request, verb)
    act = partial(readers.set_topic_stance, context, topic=topic_id, stance=stance)
    done = {"topic": topic_id, "stance": stance}
    return await post_action(request, context, act, done, f"/topics/{topic_id}")
