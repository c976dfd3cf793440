"""Votes as the ranker reads them: the signals job rebuilds the day's edition with each vote
weighed (``ranking.vote_weights``)."""

from datetime import UTC, date, datetime, timedelta

from app.cli.main import main
from app.core.reads import latest_edition
from app.services.editions import refresh_signals
from app.services.reports import Outcome
from ranking.editions import stored_items
from tests.conftest import Database
from tests.ranking.voters import cast, retract, sign_in

DAY = date(2025, 12, 19)
NOON = datetime(2025, 12, 19, 12, tzinfo=UTC)
LONG_AGO, YESTERDAY = NOON - timedelta(days=30), NOON - timedelta(days=1)


def test_a_hundred_votes_new_or_from_one_domain_move_a_paper_no_further_than_five_voters(
    embedded_db: Database,
) -> None:
    assert (
        main(
            ["run-daily", "--date", "2025-12-19", "--skip-ingest", "--quiet"], embedded_db.settings
        )
        == 0
    )
    paper, start = _lowest(embedded_db)
    new = [f"reader{n}@gmail.com" for n in range(50)]
    one_domain = [f"reader{n}@catch-all.example" for n in range(50)]
    sign_in(embedded_db, new, YESTERDAY)
    sign_in(embedded_db, one_domain, LONG_AGO)
    cast(embedded_db, new + one_domain, paper, NOON)
    attacked = _rank_after_signals(embedded_db, paper)
    retract(embedded_db, new + one_domain, paper)
    established = [f"reader@lab{n}.example" for n in range(5)]
    sign_in(embedded_db, established, LONG_AGO)
    cast(embedded_db, established, paper, NOON)
    raised = _rank_after_signals(embedded_db, paper)
    assert raised < start
    assert start - attacked <= start - raised


def _lowest(database: Database) -> tuple[str, int]:
    """The day edition's last paper and its place."""
    with database.sessions() as session:
        edition = latest_edition(session, "day", DAY)
        assert edition is not None
        items = stored_items(edition)
    return items[-1].arxiv_id, len(items) - 1


def _rank_after_signals(database: Database, arxiv_id: str) -> int:
    """The paper's place in the day edition once the signals job (offline) rebuilt it."""
    settings = database.settings.model_copy(update={"offline": True})
    report = refresh_signals(settings, database.sessions, NOON + timedelta(hours=6), DAY)
    assert report.outcome is Outcome.OK
    with database.sessions() as session:
        edition = latest_edition(session, "day", DAY)
        assert edition is not None
        return [item.arxiv_id for item in stored_items(edition)].index(arxiv_id)
