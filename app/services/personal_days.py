"""eval-personal's days as a digest run sees them, so that its ``digest`` method ranks each
pair's pool with the very score the digest and "For you" pick by.

A day becomes an :class:`digest.selection.EditionView` the way ``paperboy rank`` and
``digest/run_inputs.py`` make one: the trending model scores the day's papers with what was
known that morning (:class:`ranking.trending.replay.Replay`), the diversity rule orders the
first ``edition_size`` into the edition, and the rest of the day follows, best scored first.
The day's topics are the day clustered alone (``rank`` clusters it with the days before, which
a file replay has no store for); they only decide which papers the topic cap lets into the
edition. Author names are left out of the view, as every method is kept from them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date

import numpy as np

from app.services.personal_pairs import Corpus
from digest.selection import EditionPaper, EditionView
from digest.taste_space import TasteSpace
from ranking.diversity import DiversityRule
from ranking.editions import Item, edition_of, rank_all
from ranking.scoring import Candidate
from ranking.topics import TopicParams, cluster
from ranking.trending.replay import Replay
from ranking.trending.scorer import TrendingScorer


@dataclass(frozen=True, slots=True)
class DayView:
    """A day's view and, row for row, the corpus row of each of its papers."""

    view: EditionView
    rows: list[int]

    def in_pool_order(self, scores: np.ndarray, pool: list[int]) -> np.ndarray:
        """``scores`` (one per view paper) for the papers of ``pool`` (corpus rows), in order."""
        position = {row: index for index, row in enumerate(self.rows)}
        return np.asarray([scores[position[row]] for row in pool], dtype=np.float64)


@dataclass(slots=True)
class DayViews:
    """Each day's view, built once: every pair of a day ranks the same view."""

    corpus: Corpus
    replay: Replay
    scorer: TrendingScorer
    topics: TopicParams
    rule: DiversityRule
    edition_size: int
    space: TasteSpace | None = None
    _last: tuple[date, DayView] | None = field(default=None, repr=False)

    def of(self, day: date) -> DayView:
        if self._last is None or self._last[0] != day:
            self._last = (day, self._build(day))
        return self._last[1]

    def _build(self, day: date) -> DayView:
        replayed = self.replay.day(day)
        rows = self.corpus.days[day]
        ids = [self.corpus.papers[row].arxiv_id for row in rows]
        if [paper.arxiv_id for paper in replayed.papers] != ids:
            raise ValueError(f"the replay and the corpus disagree on the papers of {day}")
        scores = self.scorer.score(replayed.papers, self.replay.context(replayed))
        labels = cluster(replayed.embeddings, self.topics)
        papers = [
            replace(paper, topic_id=int(label) if label >= 0 else None)
            for paper, label in zip(replayed.papers, labels, strict=True)
        ]
        ranking = rank_all(papers, scores)
        edition = edition_of(ranking, self.rule, self.edition_size)
        shown = {item.arxiv_id for item in edition}
        ordered = edition + [item for item in ranking if item.arxiv_id not in shown]
        row_of = dict(zip(ids, rows, strict=True))
        by_id = {paper.arxiv_id: paper for paper in papers}
        view = EditionView(
            [_edition_paper(by_id[item.arxiv_id], item) for item in ordered],
            self.corpus.vectors[[row_of[item.arxiv_id] for item in ordered]],
            self.space,
            edition_size=len(edition),
        )
        return DayView(view, [row_of[item.arxiv_id] for item in ordered])


def _edition_paper(paper: Candidate, item: Item) -> EditionPaper:
    return EditionPaper(
        arxiv_id=paper.arxiv_id,
        title=paper.title,
        authors=[],
        author_keys=[],
        categories=list(paper.categories),
        score=item.score,
        components=item.components,
        topic_id=item.topic_id,
        topic_label=None,
        chance=item.chance,
        abstract=paper.abstract,
    )
