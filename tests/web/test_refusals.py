"""Each refusal's meaning answers one status, whoever refuses: the domain's errors keep the
statuses the routes gave them, and the bases their callers catch."""

import pytest

from accounts.addresses import BadAddressError
from accounts.corrections import CorrectionRefusedError
from accounts.library import LibraryRefusedError, UnknownListError
from accounts.person_claims import ClaimTakenError, NotClaimantError
from accounts.subscriptions import RateLimitedError
from accounts.votes import UnknownPaperError
from app.core.arxiv_ids import InvalidArxivIdError
from app.core.refusals import BadChoice, Busy, Limited, NotFound, Refusal
from app.core.tokens import TokenError
from app.web.errors import refusal_status
from app.web.forms import BadInputError
from app.web.page_views import NoSuchPageError
from app.web.search_turns import SearchBusyError, SearchRefusedError
from digest.catch_up import AwayRefusedError
from search.excluded_words import TooManyExcludedError


@pytest.mark.parametrize(
    ("refusal", "status"),
    [
        (UnknownPaperError("2501.00001"), 404),
        (UnknownListError("list 3"), 404),
        (NoSuchPageError("no page 9"), 404),
        (BadInputError("since: not a day"), 400),
        (InvalidArxivIdError("not an id"), 400),
        (TooManyExcludedError(99), 400),
        (LibraryRefusedError("too long"), 400),
        (CorrectionRefusedError("not on the page"), 400),
        (AwayRefusedError("in the future"), 400),
        (BadAddressError("no @"), 400),
        (TokenError("expired"), 400),
        (BadChoice("value is one of: up, down"), 422),
        (NotClaimantError("not yours"), 403),
        (ClaimTakenError("taken"), 409),
        (RateLimitedError("address"), 429),
        (SearchRefusedError("slow down", 7), 429),
        (SearchBusyError("busy", 2), 503),
        (Refusal("said no"), 400),
    ],
)
def test_a_refusal_answers_its_meanings_status(refusal: Refusal, status: int) -> None:
    assert refusal_status(refusal) == status


def test_refusals_keep_the_bases_their_callers_catch() -> None:
    assert isinstance(UnknownListError("list 3"), LookupError)
    assert isinstance(UnknownPaperError("x"), LookupError)
    assert isinstance(BadAddressError("no @"), ValueError)
    assert isinstance(TokenError("expired"), ValueError)
    assert isinstance(SearchBusyError("busy", 2), RuntimeError)


def test_a_wait_travels_with_the_refusal() -> None:
    assert SearchRefusedError("slow down", 7).retry_after == 7
    assert SearchBusyError("busy", 2).retry_after == 2
    assert Limited("too many").retry_after is None
    assert Busy("busy").retry_after is None
    assert isinstance(NoSuchPageError("no page 9"), NotFound)
