"""The ORM models every process shares, one module per part of the service.

``base`` (the declarative base), ``papers`` (the foundation), ``ingest``, ``ranking``,
``subscriptions`` and ``operations``. Import them from here: ``from app.core.models import Paper``.
The schema only changes through a migration in ``migrations/``; a test checks that these
models and the migrations agree.
"""

from __future__ import annotations

from app.core.models.base import Base, UTCDateTime
from app.core.models.ingest import AnnouncementEntry, FeedState, HfDailyPaper, RequestGate
from app.core.models.operations import Incident, JobRun, SchedulerLease
from app.core.models.papers import Author, IngestRun, Paper, PaperAuthor, PaperCategory
from app.core.models.ranking import (
    Edition,
    EditionItem,
    PaperEmbedding,
    PaperTopic,
    Topic,
    TopicDay,
)
from app.core.models.subscriptions import (
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
