"""What the MCP tools answer: typed models an agent reads through each tool's output schema.

A paper is the JSON API's shape (``app.web.api_models``: Hugging Face's fields and
Paperboy's), so an agent and a script read one vocabulary; these models only gather them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from app.web import api_models as api


class EditionAnswer(BaseModel):
    period: Literal["day", "week", "month"]
    edition: str | None = Field(description="The edition's key: 2025-12-19, 2025-W51, 2025-12")
    page_url: str | None = Field(description="The edition's page on this Paperboy")
    papers: list[api.DailyPaper] = Field(description="In trending order, filters applied")


class SearchAnswer(BaseModel):
    total: int = Field(description="How many papers match in all (at most 200)")
    page: int
    papers: list[api.SearchResult] = Field(description="This page of the matches")


class Links(BaseModel):
    paperboy: str = Field(description="The paper's page on this Paperboy")
    abstract: str = Field(description="arXiv's abstract page")
    pdf: str = Field(description="arXiv's PDF")
    hugging_face: str | None = Field(description="Its Hugging Face page, when listed there")
    code: str | None = Field(description="Its code repository, when one is known")


class PaperAnswer(BaseModel):
    paper: api.PaperDetail
    links: Links
    chance: float | None = Field(
        description="Its latest edition's estimated chance of trending on Hugging Face (0-1)"
    )
    explanation: list[api.ExplanationItem] = Field(
        description="Why its latest edition ranked it where it did, in words"
    )


class PapersAnswer(BaseModel):
    papers: list[api.SearchResult]


class TopicsAnswer(BaseModel):
    topics: list[api.TopicSummary]


class RadarPaper(BaseModel):
    arxiv_id: str
    title: str


class RadarTopic(BaseModel):
    label: str
    new_phrases: list[str]
    week_share: float = Field(description="Its share of the week's papers")
    baseline_share: float = Field(description="Its share in the weeks before")
    topic_id: int | None = Field(description="The topic it grew in, when there is one")
    founding: list[RadarPaper] = Field(description="The papers it began with")


class RadarAnswer(BaseModel):
    week: str | None = Field(description="The Monday of the week shown")
    weeks: list[str] = Field(description="Every week with flags, newest first")
    emerging: list[RadarTopic]
    note: str | None = Field(description="Why nothing is flagged, when the store is too short")


class WeekReviewAnswer(BaseModel):
    week: str | None = Field(description="The Monday of the week shown")
    weeks: list[str] = Field(description="Every week written up, newest first")
    review: dict[str, Any] | None = Field(description="The write-up; null: none for that week")


class ReaderPaper(BaseModel):
    paper: api.SearchResult
    why: str | None = Field(description="Why it is picked for this reader")
    saved: bool


class ForYouAnswer(BaseModel):
    edition: str | None = Field(description="The edition the picks come from")
    papers: list[ReaderPaper]


class ReadingListEntry(BaseModel):
    paper: api.SearchResult
    list_id: int | None = Field(description="The named list it is filed under")
    read: bool
    note: str


class NamedList(BaseModel):
    id: int
    name: str


class ReadingListAnswer(BaseModel):
    shown: str = Field(description="The list shown")
    lists: list[NamedList] = Field(description="The reader's named lists")
    papers: list[ReadingListEntry]


class SavedSearch(BaseModel):
    id: int
    label: str
    query: str
    category: str | None


class SavedSearchesAnswer(BaseModel):
    searches: list[SavedSearch]


class Done(BaseModel):
    done: str = Field(description="What changed, in words")
