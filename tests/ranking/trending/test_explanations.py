"""The model's chance and its worded reasons, and how a live day's score moves with the
community."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import numpy as np
from numpy.typing import NDArray

from app.core.names import author_key
from ranking.scoring import Candidate, ScoringContext, Signal
from ranking.trending.data import LabelRecord
from ranking.trending.history import AuthorHistory, Published
from ranking.trending.model import load_model
from ranking.trending.replay import Replay
from ranking.trending.scorer import TrendingScorer

DAY = date(2025, 10, 23)


def _day(
    corpus: list[Candidate], labels: list[LabelRecord], embeddings: dict[str, NDArray[np.float32]]
) -> tuple[list[Candidate], ScoringContext]:
    replay = Replay(corpus, embeddings, [r for r in labels if r.featured_on < DAY])
    inputs = replay.day(DAY)
    return inputs.papers, replay.context(inputs)


def test_every_paper_gets_a_chance_between_0_and_1_that_follows_its_score(
    corpus: list[Candidate], labels: list[LabelRecord], embeddings: dict[str, NDArray[np.float32]]
) -> None:
    papers, context = _day(corpus, labels, embeddings)
    scores = TrendingScorer(load_model()).score(papers, context)
    chances = [score.chance for score in scores]
    assert all(chance is not None and 0.0 <= chance <= 1.0 for chance in chances)
    by_score = sorted(scores, key=lambda score: score.total)
    assert [s.chance for s in by_score] == sorted(s.chance or 0.0 for s in by_score)


def test_reasons_are_only_what_lifted_the_paper_biggest_first(
    corpus: list[Candidate], labels: list[LabelRecord], embeddings: dict[str, NDArray[np.float32]]
) -> None:
    papers, context = _day(corpus, labels, embeddings)
    scores = TrendingScorer(load_model()).score(papers, context)
    assert any(score.reasons for score in scores)
    for score in scores:
        values = [reason.value for reason in score.reasons]
        assert all(value > 0 for value in values)
        assert values == sorted(values, reverse=True)
        assert all(reason.text and reason.factor in score.components for reason in score.reasons)
    best = max(scores, key=lambda score: score.total)
    assert best.reasons, "the day's top paper is above the typical paper for some reason"


def test_community_signals_move_the_score_not_the_chance_and_an_unchanged_day_is_stable(
    corpus: list[Candidate], labels: list[LabelRecord], embeddings: dict[str, NDArray[np.float32]]
) -> None:
    papers, context = _day(corpus, labels, embeddings)
    scorer = TrendingScorer(load_model())
    quiet = scorer.score(papers, context)
    assert scorer.score(papers, context) == quiet  # nothing new arrived: the same order
    last = min(range(len(papers)), key=lambda i: quiet[i].total)
    upvoted = papers[last].arxiv_id
    signals = (
        Signal(arxiv_id=upvoted, source="hf_upvotes", value=42, observed_on=DAY),
        Signal(arxiv_id=upvoted, source="paperboy_votes", value=3, observed_on=DAY),
        Signal(
            arxiv_id=upvoted, source="hf_upvotes", value=1000, observed_on=date(2025, 10, 24)
        ),  # after the day: unseen
    )
    live = scorer.score(papers, replace(context, signals=signals))
    lift = live[last].total - quiet[last].total
    assert lift == live[last].components["community"] > 0
    assert live[last].chance == quiet[last].chance
    words = [reason.text for reason in live[last].reasons if reason.factor == "community"]
    assert words == ["42 upvotes on Hugging Face so far and 3 votes on Paperboy"]
    others = [i for i in range(len(papers)) if i != last]
    assert all(live[i].total == quiet[i].total for i in others)


def test_a_team_is_two_shared_authors_not_one_shared_name() -> None:
    earlier = [
        LabelRecord(
            arxiv_id="2501.00001",
            featured_on=date(2025, 1, 10),
            upvotes=30,
            authors=("Wei Wang", "Ada Lovelace"),
        ),
        LabelRecord(
            arxiv_id="2501.00002",
            featured_on=date(2025, 1, 11),
            upvotes=5,
            authors=("Wei Wang", "Someone Else"),
        ),
    ]
    papers = [
        Published("2501.00001", ("Wei Wang", "Ada Lovelace"), date(2025, 1, 9)),
        Published("2501.00002", ("Wei Wang", "Someone Else"), date(2025, 1, 10)),
    ]
    history = AuthorHistory(earlier, papers)
    same_team = Candidate(
        arxiv_id="2502.00003",
        title="t",
        abstract="a",
        authors=("Ada Lovelace", "Wei Wang", "New Person"),
        categories=("cs.LG",),
        primary_category=None,
        comment=None,
        announced_on=date(2025, 2, 1),
    )
    namesake = Candidate(
        arxiv_id="2502.00004",
        title="t",
        abstract="a",
        authors=("Wei Wang", "Unrelated Author"),
        categories=("cs.LG",),
        primary_category=None,
        comment=None,
        announced_on=date(2025, 2, 1),
    )
    team = history.stats(same_team, date(2025, 2, 1))
    assert (team.team_featured, team.team_papers, team.team_upvotes_max) == (1, 1, 30)
    assert team.team_rate > history.stats(namesake, date(2025, 2, 1)).team_rate
    assert history.stats(namesake, date(2025, 2, 1)).team_featured == 0
    # As of a day before the featured record, the team has nothing yet.
    assert history.stats(same_team, date(2025, 1, 10)).team_featured == 0


def test_an_earlier_paper_read_by_its_stored_author_keys_counts_for_its_authors() -> None:
    name = "Björn Þór Jónsson"
    key = author_key(name)
    assert author_key(key) != key  # why stored keys are not keyed again
    papers = [
        Published("2501.00001", (key, "ada-lovelace"), date(2025, 1, 9), keyed=True),
        Published("2501.00002", (key,), date(2025, 1, 10), keyed=True),
    ]
    candidate = Candidate(
        arxiv_id="2502.00003",
        title="t",
        abstract="a",
        authors=(name, "Ada Lovelace"),
        categories=("cs.LG",),
        primary_category=None,
        comment=None,
        announced_on=date(2025, 2, 1),
    )
    stats = AuthorHistory([], papers).stats(candidate, date(2025, 2, 1))
    assert (stats.papers_max, stats.team_papers) == (2, 1)
