"""eval-personal: rank each pair's pool for its profile by content, with every method.

The methods (see docs/ranking.md, "Personal ranking"):

- ``asl_svm``: arxiv-sanity-lite's recipe (its compute.py, serve.py and send_emails.py): the
  tf-idf of title and abstract fitted on the corpus, a linear SVM per profile with the profile
  as positives and other papers as negatives, balanced class weights. arxiv-sanity-lite takes
  every paper of its database as a negative; here the negatives are the pool and the papers of
  the ``NEGATIVE_DAYS`` announcement days before it, to keep a run of thousands of pairs short;
- ``mean_cosine`` and ``max_cosine``: the mean and the best embedding cosine to the profile;
- ``paperboy``: :meth:`digest.profile_match.PoolIndex.match`, what the digest adds for a
  reader's thumbs up, with the tf-idf fitted on the pool and the embeddings compared in the
  taste space (digest.taste_space) as in the digest;
- ``paperboy_corpus_tfidf``: the same fusion with the corpus-fitted tf-idf, for comparison;
- ``paperboy_raw_embeddings`` (where there is a taste space): the same fusion with the
  embeddings as the model gives them, what the digest did before the taste space;
- ``digest`` (where labels replay the trending model): :func:`digest.selection.personal_scores`,
  the score the digest and "For you" pick by, for a reader whose only profile is thumbs up on
  the profile papers, over the day as a digest run sees it (app.services.personal_inputs): the
  trending edition first, then the rest of the day.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import date
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import NDArray

from app.services.personal_inputs import Corpus, DayViews, Pair
from digest.profile_match import PoolIndex, Scores, fuse
from digest.selection import Taste, personal_scores
from digest.taste_space import TasteSpace
from ranking.trending.metrics import BOOTSTRAP_SAMPLES, ndcg_at, recall_at, summarise

METRICS = ("recall@10", "mrr", "ndcg@10")
NEGATIVE_DAYS = 14
# arxiv-sanity-lite's default regularisation (serve.py's svm_rank and send_emails.py).
ASL_C = 0.01
# arxiv-sanity-lite's compute.py, with its default command-line values.
ASL_TFIDF: dict[str, Any] = {
    "strip_accents": "unicode",
    "lowercase": True,
    "analyzer": "word",
    "stop_words": "english",
    "token_pattern": r"(?u)\b[a-zA-Z_][a-zA-Z0-9_]+\b",
    "ngram_range": (1, 2),
    "max_features": 20000,
    "norm": "l2",
    "use_idf": True,
    "smooth_idf": True,
    "sublinear_tf": True,
    "max_df": 0.1,
    "min_df": 5,
}

# Under this many papers (a test's corpus) the document-frequency cuts would leave no word.
SMALL_CORPUS = 1000
SMALL_CUTS = {"max_df": 1.0, "min_df": 1}

Method = Callable[[Pair], Scores]
# The digest's default number of picks; the ``digest`` method's scores do not depend on it.
READER_ITEMS = 10


class Methods:
    """Every method over one corpus; the corpus tf-idf is fitted once, each pool indexed once."""

    def __init__(
        self,
        corpus: Corpus,
        asl_c: tuple[float, ...] = (ASL_C,),
        space: TasteSpace | None = None,
        days: DayViews | None = None,
    ) -> None:
        from sklearn.feature_extraction.text import TfidfVectorizer

        self.corpus, self.asl_c, self.space, self.days = corpus, asl_c, space, days
        settings = ASL_TFIDF if len(corpus.texts) >= SMALL_CORPUS else ASL_TFIDF | SMALL_CUTS
        self.terms = TfidfVectorizer(**settings).fit_transform(corpus.texts).astype(np.float32)
        self._pool: tuple[date, PoolIndex] | None = None
        self._negatives: tuple[date, list[int]] | None = None

    def all(self) -> dict[str, Method]:
        svms: dict[str, Method] = {
            "asl_svm" if n == 0 else f"asl_svm_c{c:g}": partial(self.asl_svm, c=c)
            for n, c in enumerate(self.asl_c)
        }
        methods = svms | {
            "mean_cosine": self.mean_cosine,
            "max_cosine": self.max_cosine,
            "paperboy": self.paperboy,
            "paperboy_corpus_tfidf": self.paperboy_corpus_tfidf,
        }
        if self.space is not None:
            methods["paperboy_raw_embeddings"] = self.paperboy_raw
        if self.days is not None:
            methods["digest"] = self.digest
        return methods

    def mean_cosine(self, pair: Pair) -> Scores:
        return np.asarray(self._cosines(pair).mean(axis=1), dtype=np.float64)

    def max_cosine(self, pair: Pair) -> Scores:
        return np.asarray(self._cosines(pair).max(axis=1), dtype=np.float64)

    def paperboy(self, pair: Pair) -> Scores:
        index = self._pool_index(pair)
        texts = [self.corpus.texts[row] for row in pair.profile]
        return index.match(texts, self.corpus.vectors[pair.profile])

    def paperboy_raw(self, pair: Pair) -> Scores:
        """The same match with the embeddings as the model gives them (no taste space)."""
        index = self._pool_index(pair)
        texts = [self.corpus.texts[row] for row in pair.profile]
        return fuse(self._cosines(pair), index.term_similarities(texts))

    def paperboy_corpus_tfidf(self, pair: Pair) -> Scores:
        terms = (self.terms[pair.pool] @ self.terms[pair.profile].T).toarray()
        texts = [self.corpus.texts[row] for row in pair.profile]
        index = self._pool_index(pair)
        vectors = index.vector_similarities(self.corpus.vectors[pair.profile], texts)
        return fuse(vectors, terms)

    def digest(self, pair: Pair) -> Scores:
        """What the digest ranks the day by, for a reader who gave the profile thumbs up."""
        assert self.days is not None
        day = self.days.of(pair.day)
        taste = Taste(
            max_items=READER_ITEMS,
            liked=self.corpus.vectors[pair.profile],
            liked_texts=tuple(self.corpus.texts[row] for row in pair.profile),
        )
        return day.in_pool_order(personal_scores(day.view, taste), pair.pool)

    def asl_svm(self, pair: Pair, c: float) -> Scores:
        from sklearn.svm import LinearSVC

        profile = set(pair.profile)
        negatives = [row for row in self._negative_rows(pair) if row not in profile]
        labels = np.r_[np.ones(len(pair.profile)), np.zeros(len(negatives))]
        svm = LinearSVC(class_weight="balanced", max_iter=10000, tol=1e-6, C=c)
        svm.fit(self.terms[pair.profile + negatives], labels)
        return np.asarray(svm.decision_function(self.terms[pair.pool]), dtype=np.float64)

    def _cosines(self, pair: Pair) -> NDArray[np.float32]:
        vectors = self.corpus.vectors
        return np.asarray(vectors[pair.pool] @ vectors[pair.profile].T, dtype=np.float32)

    def _pool_index(self, pair: Pair) -> PoolIndex:
        if self._pool is None or self._pool[0] != pair.day:
            texts = [self.corpus.texts[row] for row in pair.pool]
            index = PoolIndex(texts, self.corpus.vectors[pair.pool], self.space)
            self._pool = (pair.day, index)
        return self._pool[1]

    def _negative_rows(self, pair: Pair) -> list[int]:
        if self._negatives is None or self._negatives[0] != pair.day:
            earlier = self.corpus.rows_before(pair.day, NEGATIVE_DAYS)
            self._negatives = (pair.day, pair.pool + earlier)
        return self._negatives[1]


def pair_metrics(scores: Scores, pair: Pair) -> dict[str, float]:
    """recall@10, reciprocal rank of the first relevant paper, NDCG@10 (binary gains)."""
    votes = [1 if row in pair.relevant else None for row in pair.pool]
    values = scores.tolist()
    return {
        "recall@10": recall_at(10, values, votes),
        "mrr": reciprocal_rank(values, votes),
        "ndcg@10": ndcg_at(10, values, votes),
    }


def reciprocal_rank(scores: list[float], votes: list[int | None]) -> float:
    """1 / the rank of the best-placed relevant paper (ties keep pool order); 0 if none."""
    order = np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")
    ranks = [rank for rank, index in enumerate(order, 1) if votes[index] is not None]
    return 1.0 / ranks[0] if ranks else 0.0


def evaluate(methods: dict[str, Method], chosen: list[Pair], found: int) -> dict[str, Any]:
    """The results document: per pair metrics, per method mean and 95% bootstrap interval,
    and the mean time each method took per pair."""
    rows: list[dict[str, Any]] = []
    seconds = dict.fromkeys(methods, 0.0)
    for pair in chosen:
        scored: dict[str, dict[str, float]] = {}
        for name, method in methods.items():
            started = time.perf_counter()
            scores = method(pair)
            seconds[name] += time.perf_counter() - started
            scored[name] = pair_metrics(scores, pair)
        rows.append(_row(pair, scored))
    return {
        "pairs_found": found,
        "pairs": rows,
        "summary": {name: summarise([row["methods"][name] for row in rows]) for name in methods},
        "paperboy_over_asl_svm": ratio(rows, "paperboy", "asl_svm"),
        "digest_over_asl_svm": ratio(rows, "digest", "asl_svm"),
        "ms_per_pair": {name: 1000 * s / max(len(rows), 1) for name, s in seconds.items()},
    }


def ratio(rows: list[dict[str, Any]], method: str, anchor: str) -> dict[str, Any]:
    """Mean of each metric of ``method`` over that of ``anchor`` on the same pairs, with a 95%
    paired bootstrap interval (the same pairs resampled for both); empty if one is missing."""
    if not rows or method not in rows[0]["methods"] or anchor not in rows[0]["methods"]:
        return {}
    picks = np.random.default_rng(0).integers(0, len(rows), size=(BOOTSTRAP_SAMPLES, len(rows)))
    result: dict[str, Any] = {}
    for metric in METRICS:
        ours = np.array([row["methods"][method][metric] for row in rows])
        theirs = np.array([row["methods"][anchor][metric] for row in rows])
        with np.errstate(divide="ignore", invalid="ignore"):
            resampled = ours[picks].mean(axis=1) / theirs[picks].mean(axis=1)
        low, high = np.nanpercentile(resampled, [2.5, 97.5])
        mean = ours.mean() / theirs.mean() if theirs.mean() > 0 else float("nan")
        result[metric] = {"mean": float(mean), "ci95": [float(low), float(high)]}
    return result


def _row(pair: Pair, scored: dict[str, dict[str, float]]) -> dict[str, Any]:
    return {
        "author": pair.author,
        "date": pair.day.isoformat(),
        "profile": len(pair.profile),
        "pool": len(pair.pool),
        "relevant": len(pair.relevant),
        "methods": scored,
    }


def markdown_table(results: dict[str, Any]) -> str:
    """Summary as a markdown table: one row per method, mean [95% interval] per metric."""
    lines = [f"| method | {' | '.join(METRICS)} | ms/pair |", f"|---|{'---|' * len(METRICS)}---|"]
    for name, summary in results["summary"].items():
        cells = [_cell(summary[metric]) for metric in METRICS] if summary else ["-"] * 3
        ms = results["ms_per_pair"][name]
        lines.append(f"| {name} | {' | '.join(cells)} | {ms:.1f} |")
    lines.append("")
    for method in ("paperboy", "digest"):
        over = results.get(f"{method}_over_asl_svm")
        if over:
            cells = [f"{metric} {_cell(over[metric])}" for metric in METRICS]
            lines.append(f"{method} / asl_svm, paired: {', '.join(cells)}")
    return "\n".join(lines).rstrip()


def _cell(value: dict[str, Any]) -> str:
    low, high = value["ci95"]
    return f"{value['mean']:.3f} [{low:.3f}, {high:.3f}]"
