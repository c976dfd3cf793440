"""The JSON API's answers as typed models: what ``/api/openapi.json`` documents, and builds.

Items of ``/api/daily_papers`` and papers keep Hugging Face's Daily Papers shape (the keys its
``huggingface_hub`` client reads; see docs/api.md), so an HF consumer can point its base URL
at Paperboy. Where Hugging Face leaves a key out when it has nothing (``githubRepo``,
``projectPage``, ``organization``, …) Paperboy leaves it out too rather than write ``null``:
those keys are listed in each model's ``ABSENT_WHEN_NONE``. Paperboy's own additions (rank,
score, topic, primary category, …) are always present, ``null`` when unknown.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

TIMESTAMP = "ISO 8601 in UTC, as Hugging Face writes it: 2025-10-30T17:51:38.000Z"
THUMBNAIL = (
    "The paper's Hugging Face thumbnail as Paperboy's own small copy (WebP, 320x168, its address "
    "names its content and never changes); left out when none was fetched"
)


class ApiModel(BaseModel):
    """A frozen answer whose ``ABSENT_WHEN_NONE`` keys are left out when they hold nothing."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    ABSENT_WHEN_NONE: ClassVar[frozenset[str]] = frozenset()

    # No return annotation on purpose: pydantic then documents the fields' own schema (with
    # ``-> Any`` every model's schema would be empty).
    @model_serializer(mode="wrap")
    def _leave_out_absent(self, handler: SerializerFunctionWrapHandler):  # type: ignore[no-untyped-def]
        body = handler(self)
        for key in self.ABSENT_WHEN_NONE:
            if body.get(key) is None:
                body.pop(key, None)
        return body


class Author(ApiModel):
    name: str
    key: str = Field(description="Paperboy's author key: `/api/authors/{key}`")


class HfUser(ApiModel):
    """Who submitted the paper to Hugging Face's daily page (HF writes both spellings)."""

    user: str = Field(description="Hugging Face username (`submittedOnDailyBy.user`)")
    name: str = Field(description="The same username (`submittedBy.name`)")
    type: Literal["user"] = "user"


class HfOrganization(ApiModel):
    ABSENT_WHEN_NONE = frozenset({"name"})

    name: str | None = Field(None, description="Hugging Face's unique slug, when known")
    fullname: str


class TopicRef(ApiModel):
    id: int
    label: str


class Paper(ApiModel):
    """A paper in Hugging Face's shape, plus Paperboy's arXiv metadata and votes."""

    ABSENT_WHEN_NONE = frozenset(
        {
            "submittedOnDailyAt",
            "submittedOnDailyBy",
            "githubRepo",
            "githubStars",
            "projectPage",
            "organization",
            "ai_summary",
            "discussionId",
            "authorCount",
        }
    )

    id: str = Field(description="arXiv identifier without version")
    title: str
    summary: str = Field(description="The abstract")
    authors: list[Author]
    authorCount: int | None = Field(
        None,
        description="In a person's or name's answer, where `authors` lists only the first 100 "
        "of a collaboration's: how many authors the paper has (`/api/papers/{id}` lists all)",
    )
    publishedAt: str | None = Field(
        description="arXiv's submission time of version 1 when known; otherwise the "
        f"announcement, 20:00 US/Eastern the evening before `announcedOn`; null when neither "
        f"is known. {TIMESTAMP}"
    )
    submittedOnDailyAt: str | None = Field(
        None, description=f"When it was submitted to Hugging Face's daily page. {TIMESTAMP}"
    )
    submittedOnDailyBy: HfUser | None = None
    upvotes: int = Field(description="Upvotes on Hugging Face Daily Papers (0 when not there)")
    ai_keywords: list[str] = Field(
        description="Hugging Face's keywords when it had the paper, else Paperboy's key phrases"
    )
    githubRepo: str | None = None
    githubStars: int | None = None
    projectPage: str | None = None
    organization: HfOrganization | None = None
    ai_summary: str | None = Field(
        None, description="Hugging Face's one-sentence summary, written by its model"
    )
    discussionId: str | None = Field(None, description="Hugging Face's comment thread")
    paperboyVotes: int = Field(description="Votes on this Paperboy instance")
    siteComments: int = Field(
        description="Comments in this Paperboy's discussion of the paper, that everyone sees "
        "(`numComments` counts Hugging Face's)"
    )
    announcedOn: str | None = Field(description="arXiv's announcement day, YYYY-MM-DD")
    categories: list[str]
    primaryCategory: str | None = Field(
        description="null until a source that states it (arXiv's API, RSS, OAI) was read"
    )
    version: int | None = Field(description="Latest version seen; null for listing-only papers")
    comment: str | None


CHANCE = (
    "Calibrated probability, estimated at the paper's announcement before any community "
    "signal, that Hugging Face features it on Daily Papers (0..1); null for week and month "
    "editions and for scorers without calibration"
)
EXPLANATION = (
    "The factors that moved the paper away from the day's typical paper, in words, with their "
    "signed contribution on the logit scale, biggest first; pages show those with a positive "
    "value. Empty for scorers that give none"
)


class ExplanationItem(ApiModel):
    """One factor of a paper's place in an edition, in words and as a number."""

    factor: str = Field(description="The component or feature it comes from: `author_history`")
    text: str = Field(description="In a reader's words: `3 of its authors had papers featured`")
    value: float = Field(
        description="How far this factor lifts the paper above the day's typical paper (the "
        "pool's median of that component), in score units; negative: it held the paper back"
    )


class PaperItem(ApiModel):
    """Hugging Face's item shape (its daily papers and its search answer in this shape)."""

    ABSENT_WHEN_NONE = frozenset({"submittedBy", "organization", "thumbnail", "ai_summary"})

    paper: Paper
    thumbnail: str | None = Field(None, description=THUMBNAIL)
    ai_summary: str | None = Field(
        None,
        description="As `paper.ai_summary`, where `huggingface_hub`'s client reads it",
    )
    publishedAt: str | None = Field(description=f"As `paper.publishedAt`. {TIMESTAMP}")
    title: str
    summary: str
    numComments: int = Field(description="Comments on Hugging Face (0 when not there)")
    submittedBy: HfUser | None = None
    organization: HfOrganization | None = None


class SearchResult(PaperItem):
    """One item of ``/api/papers/search``, best match first."""

    rank: int = Field(description="Place among the matches, from 1")


class DailyPaper(PaperItem):
    """One item of ``/api/daily_papers``: HF's item shape with Paperboy's rank and score."""

    rank: int = Field(description="Place in the edition's trending order, from 1")
    score: float | None
    score_components: dict[str, float] = Field(
        description="The score's signed parts; they sum to `score`"
    )
    topic: TopicRef | None
    chance: float | None = Field(description=CHANCE)
    explanation: list[ExplanationItem] = Field(description=EXPLANATION)


class Appearance(ApiModel):
    period: Literal["day", "week", "month"]
    date: str
    version: int
    rank: int
    score: float
    score_components: dict[str, float]
    chance: float | None = Field(description=CHANCE)
    explanation: list[ExplanationItem] = Field(description=EXPLANATION)


class PaperDetail(Paper):
    """``/api/papers/{id}``: the paper with its topic and its places in editions."""

    ABSENT_WHEN_NONE = Paper.ABSENT_WHEN_NONE | {"thumbnail"}

    numComments: int
    thumbnail: str | None = Field(None, description=THUMBNAIL)
    topic: TopicRef | None
    editions: list[Appearance]


class AuthorTopic(ApiModel):
    id: int
    label: str
    papers: int


class Collaborator(ApiModel):
    key: str
    name: str
    sharedPapers: int
    topic: str | None = Field(default=None, description="The topic most shared papers are in")


class AuthorOrganization(ApiModel):
    slug: str = Field(description="Its name on Hugging Face; its page is /organizations/{slug}")
    name: str
    papers: int


class AuthorProfile(ApiModel):
    kind: str = Field(
        description='"group" (a group author, never split), "person" (one of a name\'s people) '
        'or "name" (everyone who publishes under it)'
    )
    key: str
    name: str
    spellings: list[str]
    paperCount: int = Field(description="All of them, on every page")
    papers: list[Paper] = Field(description="Newest first, 100 a page (?page=)")
    page: int = Field(description="This page's number, from 1")
    pages: int = Field(description="How many pages of papers there are")
    topics: list[AuthorTopic]
    collaborators: list[Collaborator] = Field(description="The closest ten, most shared first")
    collaboratorCount: int = Field(
        description="Every co-author of these papers (a collaboration's thousands are counted "
        "here, never listed)"
    )
    followers: int = Field(description="Readers following the name (a count only)")
    claimed: bool = Field(description="Whether a reader said this page is theirs")
    facts: list[str] = Field(description="What the ranking knows of them, in words")
    organizations: list[AuthorOrganization] = Field(
        description="Hugging Face organizations their papers were submitted under"
    )
    note: str
    people: list[PersonSummary] = Field(
        default_factory=list,
        description="The people Paperboy thinks publish under this name, when there are several",
    )
    person: int | None = Field(
        default=None, description="On /api/people/{id}: the person these papers are narrowed to"
    )


class PersonSummary(ApiModel):
    id: int = Field(description="Its page: /people/{id}, its API: /api/people/{id}")
    papers: int
    topic: str | None = Field(description="The topic most of their papers are in")
    coauthors: list[str] = Field(description="Their closest co-authors' names")


class TopicSummary(ApiModel):
    id: int
    label: str
    day: str = Field(description="The topic's latest day")
    size: int
    status: str
    momentum: float


class TopicSize(ApiModel):
    day: str
    size: int


class TopicDayPapers(ApiModel):
    day: str
    papers: list[str]


class RelatedTopic(ApiModel):
    id: int
    label: str
    cosine: float


class TopicProfile(ApiModel):
    id: int
    label: str
    keyPhrases: list[str]
    status: str
    firstSeenOn: str
    sizes: list[TopicSize]
    papersByDay: list[TopicDayPapers]
    related: list[RelatedTopic]


class VersionInfo(ApiModel):
    name: Literal["paperboy"]
    version: str


class ErrorDetail(ApiModel):
    status: int
    message: str = Field(description="What was wrong, in words")


class ErrorBody(ApiModel):
    """Every error of the API and feeds: 400, 404, 429, 503."""

    error: ErrorDetail


class SiteComment(ApiModel):
    """A comment in this Paperboy's discussion of a paper, by the name its reader chose."""

    id: int
    replyTo: int | None = Field(description="The top comment a reply answers")
    name: str = Field(description="The reader's display name, or `deleted reader`")
    paperAuthor: bool = Field(description="Written by the paper's verified author")
    state: Literal["shown", "deleted"]
    createdAt: str
    editedAt: str | None
    html: str = Field(description="The comment's Markdown as sanitized HTML (maths left as TeX)")


class SiteThreadComment(SiteComment):
    replies: list[SiteComment]


class SiteThread(ApiModel):
    """``/api/papers/{id}/comments``: a page of a paper's top comments with their replies."""

    arxivId: str
    count: int = Field(description="Comments everyone sees, replies included")
    page: int
    pages: int
    comments: list[SiteThreadComment]
