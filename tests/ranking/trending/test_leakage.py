"""A label dated on or after the ranked day never influences that day's ranking."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, timedelta

import numpy as np
from numpy.typing import NDArray

from ranking.scoring import Candidate
from ranking.trending.data import LabelRecord
from ranking.trending.evaluation import paperboy
from ranking.trending.history import AuthorHistory
from ranking.trending.model import load_model
from ranking.trending.replay import Replay

DAY = date(2025, 10, 23)


def _future_labels(corpus: list[Candidate], upvotes: int) -> list[LabelRecord]:
    """Every paper of the corpus featured on the ranked day or later, with many upvotes."""
    return [
        LabelRecord(
            arxiv_id=paper.arxiv_id,
            featured_on=DAY + timedelta(days=offset % 3),
            upvotes=upvotes,
            authors=paper.authors,
        )
        for offset, paper in enumerate(corpus)
    ]


def test_labels_dated_on_or_after_the_day_do_not_change_its_ranking(
    corpus: list[Candidate],
    labels: list[LabelRecord],
    embeddings: dict[str, NDArray[np.float32]],
) -> None:
    model = load_model()
    past = [record for record in labels if record.featured_on < DAY]
    honest = Replay(corpus, embeddings, past)
    leaky = Replay(corpus, embeddings, [*labels, *_future_labels(corpus, 500)])
    honest_scores = paperboy(model, honest)(honest.day(DAY))
    leaky_scores = paperboy(model, leaky)(leaky.day(DAY))
    assert leaky_scores == honest_scores
    assert leaky.topics.features(leaky.day(DAY).embeddings, DAY.toordinal()).tolist() == (
        honest.topics.features(honest.day(DAY).embeddings, DAY.toordinal()).tolist()
    )


def test_a_paper_featured_before_its_listing_day_does_not_feed_its_own_history(
    corpus: list[Candidate],
) -> None:
    paper = replace(corpus[0], authors=("Ada Newcomer",))
    early = LabelRecord(
        arxiv_id=paper.arxiv_id,
        featured_on=DAY - timedelta(days=3),
        upvotes=250,
        authors=paper.authors,
    )
    history = AuthorHistory([early], [paper])
    assert history.stats(paper, DAY).featured_max == 0
    coauthored = replace(corpus[1], authors=("Ada Newcomer", "Someone Else"))
    assert history.stats(coauthored, DAY).featured_max == 1


def test_history_counts_only_records_strictly_before_the_day(corpus: list[Candidate]) -> None:
    paper = replace(corpus[0], authors=("Grace Prior",))
    records = [
        LabelRecord(
            arxiv_id="2501.00001",
            featured_on=DAY - timedelta(days=1),
            upvotes=10,
            authors=("Grace Prior",),
        ),
        LabelRecord(arxiv_id="2501.00002", featured_on=DAY, upvotes=99, authors=("Grace Prior",)),
        LabelRecord(
            arxiv_id="2501.00003",
            featured_on=DAY + timedelta(days=1),
            upvotes=99,
            authors=("Grace Prior",),
        ),
    ]
    stats = AuthorHistory(records).stats(paper, DAY)
    assert (stats.featured_max, stats.upvotes_max) == (1, 10)


def test_a_common_name_with_few_featured_papers_gets_a_low_rate(corpus: list[Candidate]) -> None:
    common = [replace(paper, authors=("Wei Wang",)) for paper in corpus[:40]]
    rare = [replace(paper, authors=("Ada Rare",)) for paper in corpus[40:42]]
    early = DAY - timedelta(days=10)
    common = [replace(paper, announced_on=early) for paper in common]
    rare = [replace(paper, announced_on=early) for paper in rare]
    labels = [
        LabelRecord(
            arxiv_id=common[0].arxiv_id, featured_on=early, upvotes=5, authors=("Wei Wang",)
        ),
        LabelRecord(arxiv_id=rare[0].arxiv_id, featured_on=early, upvotes=5, authors=("Ada Rare",)),
    ]
    history = AuthorHistory(labels, [*common, *rare])
    newcomer = replace(corpus[50], authors=("Nobody Known",))
    rates = [
        history.stats(replace(corpus[60], authors=(name,)), DAY).rate_max
        for name in ("Wei Wang", "Ada Rare")
    ]
    assert rates[0] < history.stats(newcomer, DAY).rate_max < rates[1]
