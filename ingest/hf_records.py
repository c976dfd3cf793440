"""Hugging Face Daily Papers signals from flattened records: one JSON object a line.

The format of the recorded archive (``hf_daily_papers_*.jsonl.gz``, flattened from raw
``/api/daily_papers?date=`` responses): ``daily_date, arxiv_id, upvotes, num_comments,
published_at, submitted_on_daily_at, ai_keywords, github_repo, github_stars, project_page,
organization`` (the organization's display name), ``submitted_by`` (a username), ``authors``
(names), and others not stored here (title, summary: the paper's, stored from arXiv). The
archive's records have no organization slug, so ``organization_name`` stays None; a record may
add one as ``organization_slug`` (the bundled sample does, where a recorded response gives the
organization's slug: ``app/sample/PROVENANCE.md``), read as live ingest reads a slug.

Every field follows the rules of live ingest (:mod:`ingest.hf_daily`): a value of the wrong
type is dropped, an oversized one rejects its record. :func:`parse_record` is pure;
:func:`read_signal_file` reads a file, plain or gzip, and keeps going past a bad line.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from app.core.arxiv_ids import InvalidArxivIdError, parse_arxiv_id
from ingest import hf_daily
from ingest.bulk.chunk_reader import Rejection
from ingest.errors import FeedFormatError
from ingest.hf_daily import HfSignal
from ingest.jsonl import TruncatedFileError, decode_line, open_lines


@dataclass(frozen=True, slots=True)
class SignalFile:
    """What one file gave: its signals, its rejected lines, and why it could not be read to
    its end (``error``; the signals read before are kept)."""

    path: Path
    signals: list[HfSignal] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)
    error: str | None = None


def parse_record(raw: object) -> HfSignal:
    """One decoded record as a signal; raises :class:`FeedFormatError` saying why not."""
    if not isinstance(raw, dict):
        raise FeedFormatError(f"expected a JSON object, got {type(raw).__name__}")
    return HfSignal(
        arxiv_id=_arxiv_id(raw.get("arxiv_id")),
        daily_date=_day(raw.get("daily_date")),
        upvotes=_upvotes(raw.get("upvotes")),
        num_comments=hf_daily.count(raw.get("num_comments")),
        github_repo=hf_daily.web_url(raw.get("github_repo"), "github_repo"),
        github_stars=hf_daily.count(raw.get("github_stars")),
        ai_keywords=hf_daily.keywords(raw.get("ai_keywords") or ()),
        submitted_on_daily_at=hf_daily.timestamp(raw.get("submitted_on_daily_at")),
        published_at=hf_daily.timestamp(raw.get("published_at")),
        project_page=hf_daily.web_url(raw.get("project_page"), "project_page"),
        submitted_by=hf_daily.text(raw.get("submitted_by"), "submitted_by", hf_daily.MAX_NAME),
        organization_name=hf_daily.slug(raw.get("organization_slug"), "organization_slug"),
        organization_fullname=hf_daily.text(raw.get("organization"), "organization"),
        authors=hf_daily.author_names(raw.get("authors")),
    )


def _arxiv_id(value: object) -> str:
    if not isinstance(value, str):
        raise FeedFormatError("arxiv_id: missing or not a string")
    try:
        return parse_arxiv_id(value).base
    except InvalidArxivIdError as error:
        raise FeedFormatError(f"arxiv_id: {error}") from error


def _day(value: object) -> date:
    if isinstance(value, str):
        with suppress(ValueError):
            return date.fromisoformat(value)
    raise FeedFormatError(f"daily_date: not a YYYY-MM-DD date: {str(value)[:40]!r}")


def _upvotes(value: object) -> int:
    upvotes = hf_daily.count(value)
    if upvotes is None:
        raise FeedFormatError(f"upvotes: not a count: {str(value)[:40]!r}")
    return upvotes


def read_signal_file(path: Path) -> SignalFile:
    """Every line of the file as a signal or a rejection; a file that cannot be read (missing,
    cut short) says so in ``error``."""
    read = SignalFile(path)
    try:
        with open_lines(path) as (lines, _raw):
            for number, text in lines:
                _read_line(read, number, text)
    except (OSError, TruncatedFileError) as error:
        return SignalFile(
            path=path, signals=read.signals, rejected=read.rejected, error=_reason(error)
        )
    return read


def _read_line(read: SignalFile, number: int, text: bytes) -> None:
    line = decode_line(number, text)
    if line.error is not None:
        read.rejected.append(Rejection(number, line.error))
        return
    try:
        read.signals.append(parse_record(line.value))
    except FeedFormatError as error:
        read.rejected.append(Rejection(number, str(error)))


def _reason(error: Exception) -> str:
    if isinstance(error, FileNotFoundError):
        return "no such file"
    return str(error) if isinstance(error, TruncatedFileError) else f"unreadable: {error}"
