"""The rankings Paperboy's score is compared with, on the same pools in the same run.

Each baseline maps one replayed day to one score per pool paper. ``tfidf_lr`` is the
arxiv-sanity approach: tf-idf of title and abstract (1- and 2-grams) and a logistic regression
trained on the same labels and window as the model.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline, make_pipeline

from ranking.scoring import Candidate
from ranking.trending.features import has_code_link
from ranking.trending.history import AuthorHistory
from ranking.trending.replay import Day

Baseline = Callable[[Day], list[float]]


def random_baseline(day: Day) -> list[float]:
    """Uniform scores, seeded by the day so a run is reproducible."""
    return list(np.random.default_rng(day.day.toordinal()).random(len(day.papers)))


def n_authors(day: Day) -> list[float]:
    return [float(len(paper.authors)) for paper in day.papers]


def has_code(day: Day) -> list[float]:
    return [float(has_code_link(paper)) for paper in day.papers]


def author_prior(history: AuthorHistory) -> Baseline:
    def score(day: Day) -> list[float]:
        return [history.stats(paper, day.day).prior() for paper in day.papers]

    return score


def _text(paper: Candidate) -> str:
    return f"{paper.title}. {paper.abstract}"


def tfidf_lr(papers: Sequence[Candidate], featured: frozenset[str], until: date) -> Baseline:
    """Fit on the papers announced before ``until``; ``featured`` holds labels before it."""
    window = [paper for paper in papers if paper.announced_on < until]
    pipeline: Pipeline = make_pipeline(
        TfidfVectorizer(ngram_range=(1, 2), min_df=3, max_features=200_000, sublinear_tf=True),
        LogisticRegression(C=4.0, max_iter=2000),
    )
    pipeline.fit(
        [_text(paper) for paper in window], [paper.arxiv_id in featured for paper in window]
    )

    def score(day: Day) -> list[float]:
        return [
            float(value) for value in pipeline.decision_function([_text(p) for p in day.papers])
        ]

    return score
