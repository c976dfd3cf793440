"""The model's inputs for one paper as known on its announcement day (pure).

Four groups, each a named part of the score: the paper's text (its embedding), its metadata
(authors, categories, links and signals in the abstract and comment), its authors' history
(:mod:`ranking.trending.history`) and its topic's momentum. Only what is known when the day is
announced goes in.

The topic signals (:class:`TopicMemory`) come from the papers before the day (pure numpy). Two
questions about the neighbourhood of a paper's embedding among recent papers:

* **momentum**: is its topic growing? The log ratio of the share of last week's papers close
  to it (cosine at least ``THRESHOLD``) to that share over the four weeks before (0 = steady);
* **community interest**: did the community feature that topic lately? Among the
  ``NEIGHBOURS`` nearest papers of the last ``INTEREST_DAYS`` days, the share featured before
  the day, and the similarity to the closest (and five closest) featured ones.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from app.core.config import PACKAGED_MODEL_DIMENSIONS
from ranking.scoring import Candidate
from ranking.trending.history import AuthorStats

RECENT_DAYS = 7
BASELINE_DAYS = 28
THRESHOLD = 0.55
# Smoothing so that a topic unseen in the baseline does not get an infinite ratio.
SMOOTHING = 0.002
INTEREST_DAYS = 90
NEIGHBOURS = 30
CLOSEST_FEATURED = 5
TOPIC_FEATURES = (
    "topic_momentum",
    "topic_featured_share",
    "topic_featured_max_sim",
    "topic_featured_top5_sim",
)

Matrix = NDArray[np.float32]


def topic_momentum(
    pool: Matrix, recent: Matrix, baseline: Matrix, threshold: float = THRESHOLD
) -> NDArray[np.float64]:
    """One momentum per pool row; rows of every matrix are L2-normalised embeddings."""
    if len(recent) == 0 or len(baseline) == 0:
        return np.zeros(len(pool))
    recent_share = _share_close(pool, recent, threshold)
    baseline_share = _share_close(pool, baseline, threshold)
    return np.log((recent_share + SMOOTHING) / (baseline_share + SMOOTHING))


def _share_close(pool: Matrix, window: Matrix, threshold: float) -> NDArray[np.float64]:
    close = (pool @ window.T) >= threshold
    share: NDArray[np.float64] = close.mean(axis=1, dtype=np.float64)
    return share


def community_interest(
    pool: Matrix, window: Matrix, featured: NDArray[np.bool_]
) -> NDArray[np.float64]:
    """Columns: featured share of the nearest neighbours, closest and top-5 featured similarity."""
    result = np.zeros((len(pool), 3))
    if len(window) <= NEIGHBOURS or featured.sum() < CLOSEST_FEATURED:
        return result
    similarity = pool @ window.T
    nearest = np.argpartition(-similarity, NEIGHBOURS, axis=1)[:, :NEIGHBOURS]
    result[:, 0] = featured[nearest].mean(axis=1)
    closest = np.sort(similarity[:, featured], axis=1)[:, -CLOSEST_FEATURED:]
    result[:, 1] = closest[:, -1]
    result[:, 2] = closest.mean(axis=1)
    return result


class TopicMemory:
    """The embeddings of earlier papers with their announcement and first featured days."""

    def __init__(
        self, embeddings: Matrix, announced: NDArray[np.int64], featured: NDArray[np.int64]
    ) -> None:
        order = np.argsort(announced, kind="stable")
        self._embeddings = embeddings[order]
        self._announced = announced[order]
        self._featured = featured[order]

    def features(self, pool: Matrix, day_ordinal: int) -> NDArray[np.float64]:
        """:data:`TOPIC_FEATURES` of each pool row, from papers announced before the day only."""
        recent = self._window(day_ordinal - RECENT_DAYS, day_ordinal)
        baseline = self._window(
            day_ordinal - RECENT_DAYS - BASELINE_DAYS, day_ordinal - RECENT_DAYS
        )
        lo, hi = self._bounds(day_ordinal - INTEREST_DAYS, day_ordinal)
        interest = community_interest(
            pool, self._embeddings[lo:hi], self._featured[lo:hi] < day_ordinal
        )
        momentum = topic_momentum(pool, recent, baseline)
        return np.column_stack([momentum, interest])

    def _window(self, start: int, end: int) -> Matrix:
        lo, hi = self._bounds(start, end)
        return self._embeddings[lo:hi]

    def _bounds(self, start: int, end: int) -> tuple[int, int]:
        bounds = np.searchsorted(self._announced, [start, end])
        return int(bounds[0]), int(bounds[1])


# The trending model reads the packaged model's vectors, one feature a dimension.
EMBEDDING_SIZE = PACKAGED_MODEL_DIMENSIONS
WATCHED_CATEGORIES = ("cs.CV", "cs.CL", "cs.LG", "cs.AI", "cs.RO", "cs.MM", "cs.IR", "eess.IV")


@dataclass(frozen=True, slots=True)
class _Mention:
    """A pattern (case ignored) and the lowercase words every match of it holds: a text
    without any of them is passed over unread, which the pattern alone would take longer
    to find out."""

    pattern: re.Pattern[str]
    words: tuple[str, ...]

    def found(self, text: str, lowered: str) -> bool:
        return any(word in lowered for word in self.words) and bool(self.pattern.search(text))


_CODE_PATTERN = re.compile(
    r"github\.com|gitlab\.com|\bcodes? (?:is|are|will be|has been|have been)"
    r"(?: made)?(?: publicly)? (?:available|released)|\bour code\b",
    re.IGNORECASE,
)
_CODE = _Mention(_CODE_PATTERN, ("github.com", "gitlab.com", "code"))
_PROJECT = _Mention(
    re.compile(r"github\.io|project (?:page|website)|homepage|\bwebsite\b", re.IGNORECASE),
    ("github.io", "project", "homepage", "website"),
)
_HUGGING_FACE = _Mention(
    re.compile(r"huggingface\.co|\bhf\.co/", re.IGNORECASE), ("huggingface.co", "hf.co/")
)
_ACCEPTED = re.compile(
    r"\b(?:accepted|to appear|camera[- ]ready|NeurIPS|ICLR|ICML|CVPR|ICCV|ECCV|ACL|EMNLP|NAACL"
    r"|AAAI|IJCAI|KDD|SIGGRAPH|COLM)\b",
    re.IGNORECASE,
)
_REPORT = re.compile(r"\btech(?:nical)? report\b", re.IGNORECASE)
_PAGES = re.compile(r"(\d+)\s*pages", re.IGNORECASE)

METADATA_FEATURES = (
    "log_authors",
    "n_categories",
    "has_code",
    "has_project_page",
    "has_hf_link",
    "accepted",
    "tech_report",
    "log_pages",
    "log_abstract_words",
    *(f"in_{name}" for name in WATCHED_CATEGORIES),
)
HISTORY_FEATURES = (
    "hist_featured_max",
    "hist_featured_total",
    "hist_featured_recent",
    "hist_featured_share",
    "hist_upvotes_max",
    "hist_upvotes_best_mean",
    "hist_papers_max",
    "hist_corpus_featured_total",
    "hist_rate_max",
    "hist_rate_mean",
    "hist_rate_first",
    "hist_rate_last",
    "hist_label_rate_max",
    "hist_label_rate_mean",
    "hist_label_rate_last",
    "hist_high_rate_authors",
    "hist_log_rate_sum",
    "team_featured",
    "team_papers",
    "team_rate",
    "team_upvotes_max",
    "team_any_featured",
)
EMBEDDING_FEATURES = tuple(f"emb_{index}" for index in range(EMBEDDING_SIZE))
FEATURE_GROUPS: dict[str, tuple[str, ...]] = {
    "content": EMBEDDING_FEATURES,
    "metadata": METADATA_FEATURES,
    "author_history": HISTORY_FEATURES,
    "topic_momentum": TOPIC_FEATURES,
}
FEATURE_NAMES = tuple(name for names in FEATURE_GROUPS.values() for name in names)
FEATURE_INDEX = {name: position for position, name in enumerate(FEATURE_NAMES)}


def columns(names: Sequence[str]) -> list[int]:
    """The positions of ``names`` in a feature row."""
    return [FEATURE_INDEX[name] for name in names]


def has_code_link(paper: Candidate) -> bool:
    """Whether the abstract or comment points to code (the has-code baseline, too)."""
    text = _links_text(paper)
    return _CODE.found(text, text.lower())


def _links_text(paper: Candidate) -> str:
    return f"{paper.abstract} {paper.comment or ''}"


def metadata_features(paper: Candidate) -> list[float]:
    text, comment = _links_text(paper), paper.comment or ""
    lowered = text.lower()
    pages = _PAGES.search(comment)
    return [
        math.log1p(len(paper.authors)),
        float(len(paper.categories)),
        float(_CODE.found(text, lowered)),
        float(_PROJECT.found(text, lowered)),
        float(_HUGGING_FACE.found(text, lowered)),
        float(bool(_ACCEPTED.search(comment))),
        float(bool(_REPORT.search(f"{paper.title} {comment}"))),
        math.log1p(int(pages[1])) if pages else 0.0,
        math.log1p(len(paper.abstract.split())),
        *(float(name in paper.categories) for name in WATCHED_CATEGORIES),
    ]


def history_features(stats: AuthorStats) -> list[float]:
    return [
        math.log1p(stats.featured_max),
        math.log1p(stats.featured_total),
        math.log1p(stats.featured_recent),
        stats.featured_share,
        math.log1p(stats.upvotes_max),
        math.log1p(stats.upvotes_best_mean),
        math.log1p(stats.papers_max),
        math.log1p(stats.corpus_featured_total),
        stats.rate_max,
        stats.rate_mean,
        stats.rate_first,
        stats.rate_last,
        stats.label_rate_max,
        stats.label_rate_mean,
        stats.label_rate_last,
        float(stats.high_rate_authors),
        stats.log_rate_sum,
        math.log1p(stats.team_featured),
        math.log1p(stats.team_papers),
        stats.team_rate,
        math.log1p(stats.team_upvotes_max),
        float(stats.team_featured > 0),
    ]


def feature_matrix(
    papers: Sequence[Candidate],
    embeddings: NDArray[np.float32],
    stats: Sequence[AuthorStats],
    topics: NDArray[np.float64],
) -> NDArray[np.float64]:
    """One row per paper, columns in :data:`FEATURE_NAMES` order.

    ``topics`` holds the :data:`TOPIC_FEATURES` of each paper.
    """
    expected = (len(papers), EMBEDDING_SIZE), (len(papers), len(TOPIC_FEATURES))
    if (embeddings.shape, topics.shape) != expected or len(stats) != len(papers):
        raise ValueError(
            f"{len(papers)} papers need {len(papers)}x{EMBEDDING_SIZE} embeddings, as many "
            f"history rows and topic rows, got {embeddings.shape}, {len(stats)}, {topics.shape}"
        )
    rows = [
        [*metadata_features(paper), *history_features(row)]
        for paper, row in zip(papers, stats, strict=True)
    ]
    tabular = np.asarray(rows, dtype=np.float64).reshape(len(papers), -1)
    return np.hstack([embeddings.astype(np.float64), tabular, topics])
