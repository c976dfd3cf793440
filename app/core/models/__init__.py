"""The ORM models every process shares, one module per part of the service.

``base`` (the declarative base), ``papers`` (the foundation, and people), ``ingest``,
``ranking``, ``subscriptions``, ``researchers`` and ``operations``, each with the states
(``StrEnum``) its rows hold. Import them from here: ``from app.core.models import Paper``.
The schema only changes through a migration in ``migrations/``; a test checks that these
models and the migrations agree.
"""

from __future__ import annotations

from app.core.models.base import Base, StoredState, UTCDateTime
from app.core.models.ingest import (
    AnnouncementEntry,
    FeedState,
    HfDailyPaper,
    HfThumbnail,
    RequestGate,
)
from app.core.models.operations import (
    Incident,
    JobRun,
    MailKind,
    OutboxMail,
    RunStatus,
    SchedulerLease,
    Trigger,
)
from app.core.models.papers import (
    Author,
    IngestRun,
    IngestRunStatus,
    Paper,
    PaperAuthor,
    PaperCategory,
    PaperPerson,
    Person,
    PersonCorrection,
)
from app.core.models.ranking import (
    DayScore,
    Edition,
    EditionItem,
    EditionKey,
    EmergingTopic,
    PaperEmbedding,
    PaperTopic,
    PhraseVector,
    Topic,
    TopicDay,
    TopicStatus,
    WeekReview,
)
from app.core.models.researchers import ModerationDecision, Moderator, OrcidPaper
from app.core.models.subscriptions import (
    Delivery,
    DeliveryStatus,
    DigestFeedback,
    Frequency,
    PhraseEmbedding,
    ReadingList,
    SavedPaper,
    SavedSearch,
    SignInKey,
    SubscribeAttempt,
    Subscriber,
    SubscriberStatus,
    UsedToken,
    Vote,
)

__all__ = [
    "AnnouncementEntry",
    "Author",
    "Base",
    "DayScore",
    "Delivery",
    "DeliveryStatus",
    "DigestFeedback",
    "Edition",
    "EditionItem",
    "EditionKey",
    "EmergingTopic",
    "FeedState",
    "Frequency",
    "HfDailyPaper",
    "HfThumbnail",
    "Incident",
    "IngestRun",
    "IngestRunStatus",
    "JobRun",
    "MailKind",
    "ModerationDecision",
    "Moderator",
    "OrcidPaper",
    "OutboxMail",
    "Paper",
    "PaperAuthor",
    "PaperCategory",
    "PaperEmbedding",
    "PaperPerson",
    "PaperTopic",
    "Person",
    "PersonCorrection",
    "PhraseEmbedding",
    "PhraseVector",
    "ReadingList",
    "RequestGate",
    "RunStatus",
    "SavedPaper",
    "SavedSearch",
    "SchedulerLease",
    "SignInKey",
    "StoredState",
    "SubscribeAttempt",
    "Subscriber",
    "SubscriberStatus",
    "Topic",
    "TopicDay",
    "TopicStatus",
    "Trigger",
    "UTCDateTime",
    "UsedToken",
    "Vote",
    "WeekReview",
]
