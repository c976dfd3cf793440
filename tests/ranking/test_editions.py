import json
import math
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta

import numpy as np
import pytest
from sqlalchemy import select

from app.cli.main import main
from app.core.config import Settings
from app.core.models import Edition, EditionItem, HfDailyPaper, Paper, PaperAuthor, PaperPerson
from app.core.periods import span
from app.core.reads import latest_edition
from app.services.editions import refresh_signals
from app.services.reports import Outcome
from ranking.diversity import DiversityRule, diversify
from ranking.editions import Publication, compose, publish, stored_items
from ranking.pipeline import default_scorer
from ranking.scoring import WEIGHTS, BaselineScorer, Candidate, Reason, Score, ScoringContext
from ranking.trending.model import load_model
from tests.conftest import Database
from tests.ranking.explaining import AUTHORS, QUIET, UPVOTES, ExplainingScorer
from tests.ranking.voters import cast, sign_in

DAY = date(2025, 12, 19)
WEEK, MONTH = date(2025, 12, 15), date(2025, 12, 1)


def _candidate(arxiv_id: str, topic: int | None = None, **fields: object) -> Candidate:
    values: dict[str, object] = {
        "title": "A title",
        "abstract": "An abstract.",
        "authors": ("A. Author",),
        "categories": ("cs.LG",),
        "primary_category": "cs.LG",
        "comment": None,
        "announced_on": DAY,
        "topic_id": topic,
    }
    return Candidate(arxiv_id=arxiv_id, **{**values, **fields})  # type: ignore[arg-type]


class FixedScorer:
    """Scores from a table: the scorer an edition is built from is anything with this shape."""

    def __init__(self, totals: dict[str, float], version: str = "1") -> None:
        self.totals, self._version = totals, version

    @property
    def name(self) -> str:
        return "fixed"

    @property
    def version(self) -> str:
        return self._version

    def score(self, candidates: Sequence[Candidate], context: ScoringContext) -> list[Score]:
        return [Score(self.totals.get(c.arxiv_id, 0.0), {"table": 0.0}) for c in candidates]


def test_no_topic_has_more_than_three_of_the_top_ten() -> None:
    topics: list[int | None] = [1] * 12 + [2] * 3 + [None] * 3 + [3] * 6
    order = diversify(topics, DiversityRule(max_per_topic=3, window=10))
    assert sorted(order) == list(range(len(topics)))
    counts = Counter(topics[i] for i in order[:10] if topics[i] is not None)
    assert max(counts.values()) <= 3
    assert order[:10] == [0, 1, 2, 12, 13, 14, 15, 16, 17, 18]


def test_papers_without_a_topic_are_never_held_back() -> None:
    assert diversify([None] * 5 + [1], DiversityRule(1, 3)) == [0, 1, 2, 3, 4, 5]


def test_when_only_one_topic_is_left_it_fills_the_positions_in_score_order() -> None:
    assert diversify([1, 1, 1, 1], DiversityRule(1, 2), limit=3) == [0, 1, 2]


def test_an_edition_is_ordered_by_score_with_ties_broken_by_id() -> None:
    candidates = [_candidate("2512.3"), _candidate("2512.1"), _candidate("2512.2")]
    scores = [Score(0.5, {"a": 0.5}), Score(0.5, {"a": 0.5}), Score(0.9, {"a": 0.9})]
    items = compose(candidates, scores, DiversityRule(), limit=10)
    assert [item.arxiv_id for item in items] == ["2512.2", "2512.1", "2512.3"]
    assert items[0].components == {"a": 0.9}


def test_a_scorer_without_calibration_leaves_items_without_chance_or_reasons() -> None:
    [item] = compose([_candidate("2512.1")], [Score(0.5, {"a": 0.5})], DiversityRule(), 10)
    assert (item.chance, item.reasons) == (None, ())


def test_a_scorer_returning_the_wrong_number_of_scores_is_refused() -> None:
    with pytest.raises(ValueError, match="2 scores for 1 papers"):
        compose([_candidate("2512.1")], [Score(1, {}), Score(1, {})], DiversityRule(), 10)


def test_the_baseline_explains_its_score_with_components_that_add_up() -> None:
    linked = _candidate(
        "2512.1",
        authors=tuple(f"Author {i}" for i in range(20)),
        comment="Accepted at ICLR 2026. Code: https://github.com/x/y",
        topic_momentum=5.0,
    )
    plain = _candidate("2512.2")
    context = ScoringContext(day=DAY, embeddings=np.zeros((2, 4), dtype=np.float32))
    best, worst = BaselineScorer().score([linked, plain], context)
    assert best.components == pytest.approx(WEIGHTS)
    assert best.total == pytest.approx(1.0)
    assert worst.components["code"] == worst.components["venue"] == 0.0
    assert worst.total == pytest.approx(sum(worst.components.values()))


def test_weeks_and_months_are_keyed_by_their_first_day() -> None:
    assert span("week", DAY).key == date(2025, 12, 15)
    assert span("month", DAY).key == date(2025, 12, 1)
    assert (span("day", DAY).first, span("day", DAY).last) == (DAY, DAY)


def test_ranking_the_sample_publishes_explained_editions_and_a_rerun_changes_nothing(
    embedded_db: Database, capsys: pytest.CaptureFixture[str]
) -> None:
    for day in ("2025-12-17", "2025-12-18", "2025-12-19"):
        assert main(["rank", "--date", day], embedded_db.settings) == 0
    assert main(["rank", "--date", "2025-12-19"], embedded_db.settings) == 0
    assert "day edition 2025-12-19 v1 unchanged: 100 of 164 papers" in capsys.readouterr().out
    with embedded_db.sessions() as session:
        edition = latest_edition(session, "day", DAY)
        assert edition is not None
        items = stored_items(edition)
        assert (edition.scorer, edition.version) == ("trending", 1)
    assert all(item.score == pytest.approx(sum(item.components.values())) for item in items)
    assert set(items[0].components) == {"prior", "author_history", "topic_momentum", "community"}
    top = Counter(item.topic_id for item in items[:10])
    assert max(top.values()) <= 3


def test_a_refresh_is_a_new_version_of_the_same_edition(embedded_db: Database) -> None:
    settings = embedded_db.settings
    with embedded_db.sessions.begin() as session:
        first = publish(session, "week", DAY, FixedScorer({"2512.16698": 1.0}), settings)
        again = publish(session, "week", DAY, FixedScorer({"2512.16698": 1.0}), settings)
        refreshed = publish(session, "week", DAY, FixedScorer({"2512.16465": 1.0}, "2"), settings)
    assert (first.version, first.created) == (1, True)
    assert (again.version, again.created) == (1, False)
    assert (refreshed.version, refreshed.created, refreshed.key) == (2, True, date(2025, 12, 15))
    with embedded_db.sessions() as session:
        latest = latest_edition(session, "week", date(2025, 12, 15))
        assert latest is not None
        assert (latest.version, latest.scorer_version) == (2, "2")
        assert stored_items(latest)[0].arxiv_id == "2512.16465"
        assert len(session.scalars(select(Edition)).all()) == 2


def week_and_month_papers(database: Database) -> list[set[str]]:
    with database.sessions() as session:
        editions = [latest_edition(session, *key) for key in (("week", WEEK), ("month", MONTH))]
        return [{item.arxiv_id for item in e.items} for e in editions if e is not None]


def announced(database: Database, *days: str) -> set[str]:
    when = [date.fromisoformat(day) for day in days]
    with database.sessions() as session:
        return set(session.scalars(select(Paper.arxiv_id).where(Paper.announced_on.in_(when))))


def test_publishing_an_earlier_day_again_keeps_every_day_of_the_week_and_month(
    embedded_db: Database, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = embedded_db.settings.model_copy(update={"edition_size": 1000})
    for day in ("2025-12-17", "2025-12-18"):
        assert main(["rank", "--date", day], settings) == 0
        assert main(["publish", "--date", day], settings) == 0
    both = announced(embedded_db, "2025-12-17", "2025-12-18")
    assert week_and_month_papers(embedded_db) == [both, both]
    capsys.readouterr()
    assert main(["publish", "--date", "2025-12-17"], settings) == 0
    repair = ["run-daily", "--date", "2025-12-17", "--skip-ingest", "--quiet"]
    assert main(repair, settings) == 0
    out = capsys.readouterr().out
    assert f"week edition 2025-12-15 v2 unchanged: {len(both)} of {len(both)} papers" in out
    assert f"month edition 2025-12-01 v2 unchanged: {len(both)} of {len(both)} papers" in out
    assert week_and_month_papers(embedded_db) == [both, both]


def test_a_rebuild_holding_fewer_papers_never_replaces_the_published_edition(
    embedded_db: Database,
) -> None:
    settings, scorer = embedded_db.settings, FixedScorer({"2512.16698": 1.0})
    with embedded_db.sessions.begin() as session:
        whole = publish(session, "week", DAY, scorer, settings)
        # Built from the 17th alone (no later day is ranked): fewer papers than published.
        smaller = publish(session, "week", date(2025, 12, 17), FixedScorer({}, "2"), settings)
    assert (whole.version, whole.pool_size) == (1, 491)
    assert (smaller.version, smaller.created, smaller.pool_size) == (1, False, 491)
    assert smaller.line() == (
        "week edition 2025-12-15 v1 kept: a rebuild from 176 papers would hold fewer than 491"
    )
    with embedded_db.sessions() as session:
        assert len(session.scalars(select(Edition)).all()) == 1


def test_run_daily_embeds_ranks_and_publishes_the_day_week_and_month(
    embedded_db: Database, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(
            ["run-daily", "--date", "2025-12-19", "--skip-ingest", "--quiet"], embedded_db.settings
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "embedded (all-MiniLM-L6-v2) papers 164, embedded 0, up to date 164" in out
    assert "day edition 2025-12-19 v1 published" in out
    assert "week edition 2025-12-15 v1 published: 100 of 491 papers" in out
    assert "month edition 2025-12-01 v1 published: 100 of 491 papers" in out
    # The day's names are split into people: each of its papers' authors has one.
    with embedded_db.sessions() as session:
        day = select(Paper.arxiv_id).where(Paper.announced_on == DAY)
        authors = session.execute(
            select(PaperAuthor.arxiv_id, PaperAuthor.author_key).where(
                PaperAuthor.arxiv_id.in_(day)
            )
        )
        placed = session.execute(
            select(PaperPerson.arxiv_id, PaperPerson.author_key).where(
                PaperPerson.arxiv_id.in_(day)
            )
        )
        assert {tuple(row) for row in placed} == {tuple(row) for row in authors} != set()
    assert "people: " in out


def test_run_daily_ranks_nothing_when_the_ingest_step_fails(
    embedded_db: Database, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run-daily", "--date", "2025-12-19", "--quiet"], offline(embedded_db)) == 1
    assert "ingest failed; nothing ranked" in capsys.readouterr().err
    with embedded_db.sessions() as session:
        assert session.scalars(select(Edition)).first() is None


class UpvoteScorer(FixedScorer):
    """Scores by the Hugging Face upvotes the context carries."""

    def score(self, candidates: Sequence[Candidate], context: ScoringContext) -> list[Score]:
        upvotes = {signal.arxiv_id: signal.value for signal in context.signals}
        return [Score(upvotes.get(c.arxiv_id, 0.0), {"community": 0.0}) for c in candidates]


def test_new_upvotes_make_a_new_version_and_later_ones_are_not_seen(
    embedded_db: Database,
) -> None:
    def vote(arxiv_id: str, upvotes: int, day: date) -> None:
        with embedded_db.sessions.begin() as session:
            session.merge(
                HfDailyPaper(
                    daily_date=day,
                    arxiv_id=arxiv_id,
                    upvotes=upvotes,
                    ai_keywords=[],
                    fetched_at=datetime.now(UTC),
                )
            )

    def build() -> Publication:
        with embedded_db.sessions.begin() as session:
            return publish(session, "day", DAY, UpvoteScorer({}), embedded_db.settings)

    vote("2512.16465", 3, DAY)
    first = build()
    vote("2512.16698", 50, date(2025, 12, 20))
    assert (build().version, build().created) == (1, False)
    vote("2512.16698", 9, DAY)
    refreshed = build()
    assert (first.items[0].arxiv_id, first.version) == ("2512.16465", 1)
    assert (refreshed.items[0].arxiv_id, refreshed.version) == ("2512.16698", 2)


def test_the_scorer_setting_picks_what_orders_editions(database: Database) -> None:
    with database.sessions() as session:
        trending = default_scorer(database.settings, session)
        baseline = default_scorer(
            database.settings.model_copy(update={"scorer": "baseline"}), session
        )
    assert (trending.name, trending.version) == ("trending", load_model().model_id)
    assert baseline.name == "baseline"


def test_votes_on_paperboy_raise_a_paper_in_the_next_build(embedded_db: Database) -> None:
    settings = embedded_db.settings

    def build() -> Publication:
        with embedded_db.sessions.begin() as session:
            return publish(session, "day", DAY, default_scorer(settings, session), settings)

    first = build()
    last = first.items[-1]
    assert last.components["community"] == 0.0
    cast_votes(embedded_db, last.arxiv_id, 3, date(2025, 12, 20))  # after the day: not seen
    assert (build().version, build().created) == (1, False)
    cast_votes(embedded_db, last.arxiv_id, 30, DAY)
    second = build()
    raised = next(item for item in second.items if item.arxiv_id == last.arxiv_id)
    assert second.version == 2
    assert raised.components["community"] == pytest.approx(0.5 * math.log1p(30))
    assert raised.score > last.score
    assert second.items.index(raised) < len(first.items) - 1


def test_the_signals_job_rebuilds_the_days_editions_with_new_votes(
    embedded_db: Database,
) -> None:
    settings = embedded_db.settings
    assert main(["run-daily", "--date", "2025-12-19", "--skip-ingest", "--quiet"], settings) == 0
    with embedded_db.sessions() as session:
        day_edition = latest_edition(session, "day", DAY)
        assert day_edition is not None
        last = stored_items(day_edition)[-1]
    cast_votes(embedded_db, last.arxiv_id, 30, DAY)
    # Hugging Face cannot be read; the votes are still taken in.
    report = refresh_signals(offline(embedded_db), embedded_db.sessions, datetime.now(UTC), DAY)
    assert report.outcome is Outcome.FAILED
    with embedded_db.sessions() as session:
        rebuilt = latest_edition(session, "day", DAY)
        assert rebuilt is not None
        assert rebuilt.version == 2
        day_items = stored_items(rebuilt)
    raised = next(item for item in day_items if item.arxiv_id == last.arxiv_id)
    assert raised.components["community"] == pytest.approx(0.5 * math.log1p(30))
    assert day_items.index(raised) < len(day_items) - 1


def offline(database: Database) -> Settings:
    """Settings whose sources all fail at once: port 9 on this machine refuses connections."""
    return database.settings.model_copy(
        update={
            "arxiv_rss_url": "http://127.0.0.1:9",
            "arxiv_api_url": "http://127.0.0.1:9/api/query",
            "hf_api_url": "http://127.0.0.1:9/api",
            "arxiv_min_interval_seconds": 0.0,
            "arxiv_max_retries": 0,
            "http_timeout_seconds": 2.0,
        }
    )


def cast_votes(database: Database, arxiv_id: str, readers: int, on: date) -> None:
    """``readers`` votes for the paper, cast at noon (UTC) on ``on`` by readers who signed in
    a month before, each at a domain of their own: each vote counts fully."""
    voted_at = datetime.combine(on, datetime.min.time(), UTC).replace(hour=12)
    addresses = [f"reader-{on}@lab{reader}.example" for reader in range(readers)]
    sign_in(database, addresses, voted_at - timedelta(days=30))
    cast(database, addresses, arxiv_id, voted_at)


TOP, OTHER = "2512.16698", "2512.16465"


def explaining(authors: str = AUTHORS) -> ExplainingScorer:
    chances = {TOP: 0.123456, OTHER: 0.01}
    return ExplainingScorer({TOP: 2.0, OTHER: 1.0}, chances, authors=authors)


def test_each_item_stores_its_chance_and_reasons_and_reads_them_back(
    embedded_db: Database,
) -> None:
    with embedded_db.sessions.begin() as session:
        built = publish(session, "day", DAY, explaining(), embedded_db.settings)
    top = built.items[0]
    assert (top.arxiv_id, top.chance) == (TOP, 0.1235)
    assert top.reasons == (
        Reason("author_history", AUTHORS, 0.333333333),
        Reason("community", UPVOTES, 0.25),
        Reason("topic_momentum", QUIET, -0.4),
    )
    with embedded_db.sessions() as session:
        edition = latest_edition(session, "day", DAY)
        assert edition is not None
        assert stored_items(edition) == built.items
        row = session.scalars(select(EditionItem).where(EditionItem.arxiv_id == TOP)).one()
    assert json.loads(row.reasons or "")[0] == {
        "factor": "author_history",
        "text": AUTHORS,
        "value": 0.333333333,
    }


def test_a_rebuild_is_unchanged_until_a_chance_or_a_reasons_words_change(
    embedded_db: Database,
) -> None:
    settings = embedded_db.settings

    def build(scorer: ExplainingScorer) -> tuple[int, bool]:
        with embedded_db.sessions.begin() as session:
            built = publish(session, "day", DAY, scorer, settings)
        return built.version, built.created

    assert build(explaining()) == (1, True)
    assert build(explaining()) == (1, False)
    assert build(explaining(authors="4 of its authors had papers featured before")) == (2, True)
    moved = explaining(authors="4 of its authors had papers featured before")
    moved.chances[OTHER] = 0.02
    assert build(moved) == (3, True)


def test_a_week_edition_keeps_the_reasons_but_no_chance(embedded_db: Database) -> None:
    with embedded_db.sessions.begin() as session:
        week = publish(session, "week", DAY, explaining(), embedded_db.settings)
    assert week.items[0].arxiv_id == TOP
    assert all(item.chance is None for item in week.items)
    assert week.items[0].reasons[0].text == AUTHORS
