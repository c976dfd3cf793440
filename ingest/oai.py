"""arXiv's OAI-PMH interface (``oaipmh.arxiv.org/oai``): ``ListRecords``, and the backfill it
serves.

Pages are parsed purely (bytes in, records out) in the ``arXiv`` metadata format, and in
``oai_dc`` (older harvests); :func:`list_records` follows ``resumptionToken`` from page to
page. ``noRecordsMatch`` is an empty result, not an error; ``badResumptionToken`` (an expired
token) and other OAI errors are. A ``503`` with ``Retry-After`` is waited out by the HTTP shell.

A backfill (:func:`backfill`) harvests a date range of a category and stores it page by page.
Each page is committed on its own, so a fault on page five (an expired resumption token, a
server that stays down) keeps the four pages before it; the report says where it stopped.
OAI-PMH dates are datestamps (last change of a record), not announcement days, so a backfill
fills in papers and leaves announcement days to the listings.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from xml.etree.ElementTree import Element

import requests

from app.core.arxiv_ids import InvalidArxivIdError, parse_arxiv_id
from app.core.db import session_scope
from app.core.models import IngestRunStatus
from app.core.names import collapse_whitespace
from ingest import live_writes, oai
from ingest.errors import FeedFormatError, SourceError
from ingest.http import get
from ingest.live import FAILURES, MAX_LOGGED_REJECTIONS, Context, RunReport
from ingest.records import PaperRecord, RecordError, arxiv_categories, checked
from ingest.safe_xml import local_name, parse_xml

OAI = "{http://www.openarchives.org/OAI/2.0/}"
ARXIV = "{http://arxiv.org/OAI/arXiv/}"
DC = "{http://purl.org/dc/elements/1.1/}"
# Archives that arXiv's OAI-PMH sets file under "physics:" (e.g. "physics:hep-th").
PHYSICS_ARCHIVES = frozenset(
    {
        "astro-ph",
        "cond-mat",
        "gr-qc",
        "hep-ex",
        "hep-lat",
        "hep-ph",
        "hep-th",
        "math-ph",
        "nlin",
        "nucl-ex",
        "nucl-th",
        "physics",
        "quant-ph",
    }
)


class OaiError(SourceError):
    """The OAI-PMH server answered with an error other than ``noRecordsMatch``."""


class BadResumptionTokenError(OaiError):
    """The resumption token expired or is unknown: restart the harvest from its dates."""


@dataclass(frozen=True, slots=True)
class OaiPage:
    records: list[PaperRecord] = field(default_factory=list)
    token: str | None = None
    rejected: list[str] = field(default_factory=list)


def oai_set(category: str) -> str:
    """The OAI-PMH set of a category, as today's arXiv names them.

    ``cs.AI`` -> ``cs:cs:AI``, ``cs`` -> ``cs``, ``hep-th`` -> ``physics:hep-th``.
    """
    archive, _, subject = category.partition(".")
    group = "physics" if archive in PHYSICS_ARCHIVES else archive
    if subject:
        return f"{group}:{archive}:{subject}"
    return archive if group == archive else f"{group}:{archive}"


def parse_page(body: bytes) -> OaiPage:
    root = parse_xml(body, "OAI-PMH response")
    if local_name(root) != "OAI-PMH":
        raise FeedFormatError(f"OAI-PMH response: expected <OAI-PMH>, got <{local_name(root)}>")
    error = root.find(f"{OAI}error")
    if error is not None:
        return _error_page(error)
    listing = root.find(f"{OAI}ListRecords")
    if listing is None:
        raise FeedFormatError("OAI-PMH response: no ListRecords")
    page = OaiPage(token=(listing.findtext(f"{OAI}resumptionToken") or "").strip() or None)
    for number, element in enumerate(listing.iter(f"{OAI}record"), start=1):
        _add_record(page, number, element)
    return page


def _error_page(error: Element) -> OaiPage:
    code = error.get("code", "")
    if code == "noRecordsMatch":
        return OaiPage()
    kind = BadResumptionTokenError if code == "badResumptionToken" else OaiError
    raise kind(f"OAI-PMH error {code}: {collapse_whitespace(error.text or '')}")


def _add_record(page: OaiPage, number: int, element: Element) -> None:
    header = element.find(f"{OAI}header")
    if header is not None and header.get("status") == "deleted":
        return  # arXiv never deletes papers; a deleted header carries no metadata
    metadata = element.find(f"{OAI}metadata")
    try:
        if metadata is None or len(metadata) == 0:
            raise FeedFormatError("no metadata")
        page.records.append(checked(_record(metadata[0])))
    except (FeedFormatError, InvalidArxivIdError, RecordError) as error:
        page.rejected.append(f"record {number}: {error}")


def _record(metadata: Element) -> PaperRecord:
    if local_name(metadata) == "arXiv":
        return arxiv_record(metadata)
    if local_name(metadata) == "dc":
        return dc_record(metadata)
    raise FeedFormatError(f"unknown metadata format <{local_name(metadata)}>")


def arxiv_record(metadata: Element) -> PaperRecord:
    """A record in the ``arXiv`` format; its first category is the primary one."""
    categories = arxiv_categories((metadata.findtext(f"{ARXIV}categories") or "").split())
    created = _day(metadata.findtext(f"{ARXIV}created"))
    return PaperRecord(
        arxiv_id=parse_arxiv_id(_required(metadata, f"{ARXIV}id", "id")).base,
        version=None,  # the arXiv format has no versions
        title=_required(metadata, f"{ARXIV}title", "title"),
        abstract=collapse_whitespace(metadata.findtext(f"{ARXIV}abstract") or ""),
        authors=tuple(_author_name(author) for author in metadata.iter(f"{ARXIV}author")),
        categories=categories,
        primary_category=categories[0] if categories else None,
        comment=_optional(metadata, f"{ARXIV}comments"),
        journal_ref=_optional(metadata, f"{ARXIV}journal-ref"),
        doi=_optional(metadata, f"{ARXIV}doi"),
        license=_optional(metadata, f"{ARXIV}license"),
        submitted_at=created,
        updated_at=_day(metadata.findtext(f"{ARXIV}updated")) or created,
    )


def dc_record(metadata: Element) -> PaperRecord:
    """A record in ``oai_dc``: no categories, names as "Last, First"."""
    identifiers = [text for text in _texts(metadata, f"{DC}identifier") if "arxiv.org/abs/" in text]
    if not identifiers:
        raise FeedFormatError("no arXiv identifier")
    descriptions = _texts(metadata, f"{DC}description")
    comments = [text.removeprefix("Comment:").strip() for text in descriptions[1:]]
    return PaperRecord(
        arxiv_id=parse_arxiv_id(identifiers[0]).base,
        version=None,
        title=_required(metadata, f"{DC}title", "title"),
        abstract=descriptions[0] if descriptions else "",
        authors=tuple(_dc_name(name) for name in _texts(metadata, f"{DC}creator")),
        categories=(),
        comment="; ".join(comments) or None,
        submitted_at=_day(next(iter(_texts(metadata, f"{DC}date")), None)),
    )


def _texts(element: Element, tag: str) -> list[str]:
    return [collapse_whitespace(found.text or "") for found in element.iter(tag) if found.text]


def _required(element: Element, tag: str, what: str) -> str:
    text = collapse_whitespace(element.findtext(tag) or "")
    if not text:
        raise FeedFormatError(f"no {what}")
    return text


def _optional(element: Element, tag: str) -> str | None:
    return collapse_whitespace(element.findtext(tag) or "") or None


def _author_name(author: Element) -> str:
    parts = (author.findtext(f"{ARXIV}{name}") for name in ("forenames", "keyname", "suffix"))
    return collapse_whitespace(" ".join(part for part in parts if part))


def _dc_name(name: str) -> str:
    last, _, first = name.partition(", ")
    return f"{first} {last}".strip()


def _day(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        return datetime.combine(date.fromisoformat(text.strip()), datetime.min.time(), UTC)
    except ValueError as error:
        raise FeedFormatError(f"bad date {text!r}") from error


def list_records(
    session: requests.Session,
    url: str,
    *,
    set_spec: str | None,
    from_day: date,
    until_day: date,
    metadata_prefix: str = "arXiv",
) -> Iterator[OaiPage]:
    """Every page of a ``ListRecords`` harvest (both dates inclusive), following the token."""
    params = {"verb": "ListRecords", "metadataPrefix": metadata_prefix}
    params |= {"from": from_day.isoformat(), "until": until_day.isoformat()}
    if set_spec:
        params["set"] = set_spec
    while True:
        page = parse_page(get(session, url, params=params).content)
        yield page
        if page.token is None:
            return
        params = {"verb": "ListRecords", "resumptionToken": page.token}


def backfill(
    context: Context, categories: tuple[str, ...], from_day: date, until_day: date
) -> list[RunReport]:
    """Harvest ``from_day``..``until_day`` (both inclusive) for each category."""
    if until_day < from_day:
        raise ValueError(f"--until {until_day} is before --from {from_day}")
    reports = []
    for category in categories:
        set_spec = oai.oai_set(category)
        report = RunReport("oai", category, detail=f"set {set_spec}, {from_day}..{until_day}")
        harvest(context, report, set_spec, from_day, until_day)
        reports.append(report)
    return reports


def harvest(
    context: Context,
    report: RunReport,
    set_spec: str | None,
    from_day: date,
    until_day: date,
    metadata_prefix: str = "arXiv",
) -> set[str]:
    """Store every page of one harvest; counts and failures go into ``report``.

    Returns the ids of the papers stored (also when the harvest stopped early).
    """
    seen: set[str] = set()
    pages = oai.list_records(
        context.arxiv,
        context.settings.arxiv_oai_url,
        set_spec=set_spec,
        from_day=from_day,
        until_day=until_day,
        metadata_prefix=metadata_prefix,
    )
    try:
        for page in pages:
            _store_page(context, page, report)
            seen.update(record.arxiv_id for record in page.records)
    except FAILURES as error:
        stored = report.counts["read"]
        report.escalate(
            IngestRunStatus.FAILED, f"{error} (after {stored} records, which stay stored)"
        )
    if report.counts["read"] == 0 and report.status is IngestRunStatus.OK:
        report.escalate(IngestRunStatus.EMPTY)
    return seen


def cross_check(context: Context, categories: tuple[str, ...], day: date) -> list[RunReport]:
    """Harvest one day per category and say how much of its stored listing OAI-PMH has.

    The comparison is informational: OAI datestamps (last change) and announcement days
    differ by a day or so, so it never changes a status.
    """
    reports = []
    for category in categories:
        set_spec = oai.oai_set(category)
        report = RunReport("oai", category, day, detail=f"set {set_spec}, {day}..{day}")
        seen = harvest(context, report, set_spec, day, day)
        with session_scope(context.sessions) as session:
            listed = set(live_writes.listed_ids(session, day, [category]))
        if listed:
            found = len(listed & seen)
            report.detail = f"{report.detail}; {found} of {len(listed)} listed papers harvested"
        reports.append(report)
    return reports


def _store_page(context: Context, page: oai.OaiPage, report: RunReport) -> None:
    with session_scope(context.sessions) as session:
        counts = live_writes.store_papers(session, page.records)
    report.counts.update(
        read=len(page.records),
        new=counts.new,
        updated=counts.updated,
        unchanged=counts.unchanged,
        rejected=len(page.rejected),
    )
    if page.rejected:
        report.escalate(IngestRunStatus.PARTIAL, "\n".join(page.rejected[:MAX_LOGGED_REJECTIONS]))
