"""eval-personal's ``digest`` method: each day as a digest run sees it, ranked by the digest's
own score, on the real 2026 snippet and the shipped trending model."""

from collections import Counter
from pathlib import Path

import numpy as np

from app.core.config import Settings
from app.services.personal_eval import Methods
from app.services.personal_inputs import Corpus, DayViews, Pair
from digest.selection import Taste, personal_scores, select
from digest.taste_space import load_space
from ranking.day_topics import topic_params
from ranking.diversity import DiversityRule
from ranking.trending.data import load_labels
from ranking.trending.model import load_model
from ranking.trending.replay import Replay
from ranking.trending.scorer import TrendingScorer
from tests.services.personal import authors_2026

LABELS = Path(__file__).resolve().parent.parent / "fixtures" / "trending" / "hf_daily_sample.jsonl"
# Smaller than the day's 146 papers, so that the view has a rest of the day after the edition.
EDITION = 40


def _days(corpus: Corpus, rule: DiversityRule | None = None) -> DayViews:
    settings = Settings()
    vectors = dict(zip((paper.arxiv_id for paper in corpus.papers), corpus.vectors, strict=True))
    return DayViews(
        corpus=corpus,
        replay=Replay(corpus.papers, vectors, load_labels([LABELS])),
        scorer=TrendingScorer(load_model()),
        topics=topic_params(settings),
        rule=rule or DiversityRule(settings.diversity_max_per_topic, settings.diversity_window),
        edition_size=EDITION,
        space=load_space(),
    )


def _taste(corpus: Corpus, pair: Pair) -> Taste:
    return Taste(
        max_items=10,
        liked=corpus.vectors[pair.profile],
        liked_texts=tuple(corpus.texts[row] for row in pair.profile),
    )


def test_a_day_is_its_trending_edition_then_the_rest_of_the_day_best_first() -> None:
    corpus, pairs = authors_2026()
    day = _days(corpus).of(pairs[0].day)
    papers = day.view.papers
    assert sorted(day.rows) == sorted(pairs[0].pool)  # every paper of the day, once
    assert day.view.shown_size == EDITION
    assert [corpus.papers[row].arxiv_id for row in day.rows] == [p.arxiv_id for p in papers]
    rest = [paper.score for paper in papers[EDITION:]]
    assert rest == sorted(rest, reverse=True)
    # The edition is in the diversity rule's order: no topic over its share of a window.
    settings = Settings()
    for start in range(0, EDITION, settings.diversity_window):
        window = [p.topic_id for p in papers[start : start + settings.diversity_window]]
        shares = Counter(topic for topic in window if topic is not None)
        assert max(shares.values()) <= settings.diversity_max_per_topic
    assert day.view.trending[EDITION - 1] > 0 and not day.view.trending[EDITION:].any()
    assert all(not paper.authors and not paper.author_keys for paper in papers)


def test_the_digest_method_ranks_the_pool_in_the_order_the_digest_picks_from() -> None:
    corpus, pairs = authors_2026()
    # No topic cap: the picks are then exactly the best of the score.
    days = _days(corpus, DiversityRule(max_per_topic=1000, window=10))
    methods = Methods(corpus, space=load_space(), days=days)
    assert "digest" in methods.all()
    for pair in pairs[:5]:
        scores = methods.digest(pair)
        best = [corpus.papers[pair.pool[i]].arxiv_id for i in np.argsort(-scores, kind="stable")]
        view = days.of(pair.day).view
        picks = select(view, _taste(corpus, pair), max_per_topic=1000, exclusion_cosine=1.1)
        assert [pick.paper.arxiv_id for pick in picks] == best[:10]


def test_the_thumbs_up_match_lifts_an_authors_papers_above_their_trending_place() -> None:
    corpus, pairs = authors_2026()
    days = _days(corpus)
    methods = Methods(corpus, space=load_space(), days=days)
    lifted = 0
    for pair in pairs:
        view = days.of(pair.day)
        trending_only = view.in_pool_order(view.view.trending, pair.pool)
        own = sorted(pair.relevant)
        digest_scores = methods.digest(pair)
        rank_digest = _best_rank(digest_scores, pair.pool, own)
        rank_trending = _best_rank(trending_only, pair.pool, own)
        lifted += rank_digest < rank_trending
        assert np.array_equal(
            digest_scores,
            view.in_pool_order(personal_scores(view.view, _taste(corpus, pair)), pair.pool),
        )
    assert lifted >= len(pairs) * 3 // 4


def _best_rank(scores: np.ndarray, pool: list[int], relevant: list[int]) -> int:
    order = [pool[i] for i in np.argsort(-scores, kind="stable")]
    return min(order.index(row) for row in relevant)
