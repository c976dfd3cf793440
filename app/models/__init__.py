"""The ORM models every process shares, one module per part of the service.

``base`` (the declarative base), ``papers`` (the foundation), ``ingest``, ``ranking``,
``subscriptions`` and ``operations``. Import them from here: ``from app.models import Paper``.
The schema only changes through a migration in ``migrations/``; a test checks that these
models and the migrations agree.
"""

from __future__ import annotations

from app.models.base import Base, UTCDateTime
from app.models.ingest import AnnouncementEntry, FeedState, HfDailyPaper, RequestGate
from app.models.operations import Incident, JobRun, SchedulerLease
from app.models.papers import Author, IngestRun, Paper, PaperAuthor, PaperCategory
from app.models.ranking import Edition, EditionItem, PaperEmbedding, PaperTopic, Topic, TopicDay
from app.models.subscriptions import (
    Delivery,
    DigestFeedback,
    PhraseEmbedding,
    SignInKey,
    SubscribeAttempt,
    Subscriber,
    UsedToken,
    Vote,
)

__all__ = [
    "AnnouncementEntry",
    "Author",
    "Base",
    "Delivery",
    "DigestFeedback",
    "Edition",
    "EditionItem",
    "FeedState",
    "HfDailyPaper",
    "Incident",
    "IngestRun",
    "JobRun",
    "Paper",
    "PaperAuthor",
    "PaperCategory",
    "PaperEmbedding",
    "PaperTopic",
    "PhraseEmbedding",
    "RequestGate",
    "SchedulerLease",
    "SignInKey",
    "SubscribeAttempt",
    "Subscriber",
    "Topic",
    "TopicDay",
    "UTCDateTime",
    "UsedToken",
    "Vote",
]
