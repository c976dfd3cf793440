"""Interests saved on the preferences form are embedded as they are saved, so For you (which
never loads the model itself) reads them at once instead of after the next digest run."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from accounts import links
from app.core.config import Settings
from app.core.models import PhraseEmbedding, Subscriber
from app.web.app import create_app
from digest.ledger import Reader
from digest.selection import Taste
from digest.tastes import Tastes
from tests.conftest import Database
from tests.digest.conftest import NOW, Clock
from tests.digest.editions import add_subscriber
from tests.digest.test_preferences import FIELDS

INTERESTS = "protein folding\ngraph neural networks"
# The two tests that save with semantic search on load the query model.
model = pytest.mark.model


def _save(client: TestClient, settings: Settings, database: Database, subscriber_id: int) -> None:
    with database.sessions() as session:
        subscriber = session.get(Subscriber, subscriber_id)
        assert subscriber is not None
        token = links.preferences_url(settings, subscriber, NOW).split("token=")[1]
    fields = {**FIELDS, "interests": INTERESTS, "exclusions": "cryptocurrency"}
    saved = client.post("/subscriptions/preferences", data={**fields, "token": token})
    assert saved.status_code == 200


def _taste_as_for_you_reads_it(database: Database, settings: Settings, subscriber_id: int) -> Taste:
    with database.sessions() as session:
        subscriber = session.get(Subscriber, subscriber_id)
        assert subscriber is not None
        tastes = Tastes(session, settings.embedding_model, None, only=subscriber_id)
        return tastes.of(session, Reader.of(subscriber))


@model
def test_saved_interests_reach_for_you_without_a_digest_run(
    client: TestClient, database: Database, mail_settings: Settings
) -> None:
    subscriber_id = add_subscriber(database.sessions, "ada@example.org")
    _save(client, mail_settings, database, subscriber_id)
    taste = _taste_as_for_you_reads_it(database, mail_settings, subscriber_id)
    assert taste.interests == ["protein folding", "graph neural networks"]
    assert taste.interest_vectors is not None and taste.interest_vectors.shape[0] == 2
    assert taste.exclusion_vectors is not None and taste.exclusion_vectors.shape[0] == 1
    with database.sessions() as session:
        models = set(session.scalars(select(PhraseEmbedding.model)))
    assert models == {mail_settings.embedding_model}


@model
def test_saving_again_embeds_nothing_twice(
    client: TestClient, database: Database, mail_settings: Settings
) -> None:
    subscriber_id = add_subscriber(database.sessions, "ada@example.org")
    _save(client, mail_settings, database, subscriber_id)
    _save(client, mail_settings, database, subscriber_id)
    with database.sessions() as session:
        assert len(session.scalars(select(PhraseEmbedding)).all()) == 3


def test_a_site_without_semantic_search_leaves_them_to_the_digest_run(
    database: Database, mail_settings: Settings, clock: Clock
) -> None:
    settings = mail_settings.model_copy(update={"search_semantic": False})
    subscriber_id = add_subscriber(database.sessions, "ada@example.org")
    app = create_app(settings, clock)
    with TestClient(app, base_url="https://paperboy.test") as client:
        _save(client, settings, database, subscriber_id)
    assert _taste_as_for_you_reads_it(database, settings, subscriber_id).interest_vectors is None
