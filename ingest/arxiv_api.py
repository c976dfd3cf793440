"""The arXiv API (``export.arxiv.org/api/query``) through the ``arxiv`` package.

The package pages with ``start``/``max_results`` and builds its results; its HTTP session is
replaced by a :class:`ingest.http.PoliteSession`, so each of its requests passes the
deployment's politeness gate and retry policy, and each response is checked here first:
unsafe XML is refused before the package's parser sees it, and the API's error feed (HTTP 400
with an ``Error`` entry) becomes an error that quotes arXiv's message.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice

import arxiv
import requests

from app.core.arxiv_ids import InvalidArxivIdError, parse_arxiv_id
from app.core.config import Settings
from app.core.names import collapse_whitespace
from ingest.errors import FeedFormatError, FetchError, SourceError
from ingest.http import Gate, PoliteSession
from ingest.records import PaperRecord, RecordError, arxiv_categories, checked
from ingest.safe_xml import parse_xml

# Ids per id_list query; the API returns up to this many entries on one page.
ID_BATCH_SIZE = 100
# The API now and then serves an empty page in the middle of a result set; ask again this often.
EMPTY_PAGE_RETRIES = 2
_ATOM = "{http://www.w3.org/2005/Atom}"


class ApiQueryError(SourceError):
    """The API refused the query (its error feed); the message is arXiv's."""


@dataclass(frozen=True, slots=True)
class Fetched:
    records: list[PaperRecord] = field(default_factory=list)
    rejected: dict[str, str] = field(default_factory=dict)  # why, by arXiv id


def api_session(settings: Settings, gate: Gate | None) -> PoliteSession:
    return PoliteSession(settings, gate, check=check_response)


def make_client(settings: Settings, session: requests.Session, page_size: int) -> arxiv.Client:
    # The package spaces requests per client object only; the gated session spaces every
    # request of the deployment, so the package's own delay is off.
    client = arxiv.Client(page_size=page_size, delay_seconds=0, num_retries=EMPTY_PAGE_RETRIES)
    client.query_url_format = f"{settings.arxiv_api_url}?{{}}"
    client._session = session  # the package has no public way to pass a session
    return client


def check_response(response: requests.Response) -> None:
    """Refuse unsafe XML; turn the API's error feed into :class:`ApiQueryError`.

    Any other refused status is a :class:`FetchError` here, because the package would retry
    it (a 404 stays a 404); 429 and 5xx have been retried by the session already.
    """
    if response.status_code not in (200, 400):
        message = f"HTTP {response.status_code} from the arXiv API: {response.url}"
        raise FetchError(message, response.status_code, response.content)
    root = parse_xml(response.content, "arXiv API response")
    if response.status_code == 400:
        summaries = [entry.findtext(f"{_ATOM}summary") for entry in root.iter(f"{_ATOM}entry")]
        message = "; ".join(collapse_whitespace(text) for text in summaries if text)
        raise ApiQueryError(f"the arXiv API refused the query: {message or 'HTTP 400'}")


def fetch_by_ids(client: arxiv.Client, arxiv_ids: Sequence[str]) -> Fetched:
    """Full metadata of the given papers, in ``id_list`` batches of the client's page size."""
    fetched = Fetched()
    for batch in _batches(arxiv_ids, client.page_size):
        _run(client, arxiv.Search(id_list=list(batch), max_results=len(batch)), fetched)
    return fetched


def search(client: arxiv.Client, query: str, max_results: int) -> Fetched:
    """The first ``max_results`` papers of a search, paged by the client's page size."""
    fetched = Fetched()
    _run(client, arxiv.Search(query=query, max_results=max_results), fetched)
    return fetched


def _run(client: arxiv.Client, query: arxiv.Search, fetched: Fetched) -> None:
    try:
        for result in client.results(query):
            _add(fetched, result)
    except arxiv.UnexpectedEmptyPageError as error:
        raise FetchError(f"the arXiv API kept serving an empty page: {error.url}") from error
    except arxiv.HTTPError as error:
        message = f"HTTP {error.status} from the arXiv API: {error.url}"
        raise FetchError(message, error.status) from error
    except ValueError as error:
        # The package builds a whole page at once and raises on one bad entry (a date that is
        # no date); ours are handled entry by entry in _add, so this one is the page's.
        raise FeedFormatError(f"the arXiv API's answer could not be read: {error}") from error


def _add(fetched: Fetched, result: arxiv.Result) -> None:
    try:
        fetched.records.append(checked(result_to_record(result)))
    except (RecordError, InvalidArxivIdError) as error:
        fetched.rejected[_short_id(result.entry_id)] = str(error)


def _short_id(entry_id: str) -> str:
    try:
        return parse_arxiv_id(entry_id).base
    except InvalidArxivIdError:
        return entry_id


def result_to_record(result: arxiv.Result) -> PaperRecord:
    """One API entry as a record (pure). The API knows no announcement date."""
    identifier = parse_arxiv_id(result.entry_id)
    return PaperRecord(
        arxiv_id=identifier.base,
        version=identifier.version,
        title=collapse_whitespace(result.title),
        abstract=collapse_whitespace(result.summary),
        authors=tuple(collapse_whitespace(author.name) for author in result.authors),
        categories=arxiv_categories(list(result.categories)),
        primary_category=result.primary_category or None,
        comment=_optional(result.comment),
        journal_ref=_optional(result.journal_ref),
        doi=_optional(result.doi),
        submitted_at=result.published,
        updated_at=result.updated,
    )


def _optional(text: str | None) -> str | None:
    return collapse_whitespace(text) or None if text else None


def _batches(items: Iterable[str], size: int) -> Iterator[tuple[str, ...]]:
    iterator = iter(items)
    while batch := tuple(islice(iterator, size)):
        yield batch
