"""Learning the taste space (digest.taste_space) from real (author, day) pairs.

Each pair of ``eval-personal`` (app.services.personal_inputs) is a lesson: given an author's
earlier papers, their own papers of the day should come first among the day's. The map
``normalise(W [x - centre; lexical(text) - lexical centre])`` is learned listwise: for each
pair, a softmax over the day's papers of the cosine to the profile's mean (in the space, at
``temperature``), and the loss is minus the mean log-probability of the author's own papers.
``W`` starts at the identity and is pulled back to it (``identity_decay``); the lexical
projection starts at the LSA of the corpus tf-idf and learns at a tenth of ``W``'s rate. With
one step per announcement day, a few epochs are all the data bear (more overfit: on 2025
pairs the embedding-only match peaked at epoch 3 and fell by a tenth at epoch 10). The
settings were chosen on pairs of 2025 only (docs/ranking.md, "Personal ranking").

Only titles, abstracts and embeddings are learned from; author keys only say which papers
are whose, as in eval-personal. torch is imported by the training alone.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass
from datetime import date
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from app.services.personal_eval import ASL_TFIDF, SMALL_CORPUS, SMALL_CUTS
from app.services.personal_inputs import Corpus, Pair, pairs
from digest.taste_space import Lexicon, TasteSpace

if TYPE_CHECKING:
    import torch


EPOCHS = 3


@dataclass(frozen=True, slots=True)
class TrainingSettings:
    epochs: int = EPOCHS
    temperature: float = 0.05
    learning_rate: float = 1e-3
    identity_decay: float = 0.01
    seed: int = 0
    # 0: no lexical part (the embedding alone, format 1). The words are the corpus tf-idf of
    # eval-personal's anchor (ASL_TFIDF): 20,000 terms by 128 dimensions is 5 MB in float16.
    lexical_dimensions: int = 128
    # The projection has 2.6M numbers against W's 0.26M: at W's rate it learns the training
    # authors' words by heart within an epoch (on 2025 pairs it found fewer of their papers after
    # three epochs than after one); at a tenth of it it keeps gaining for three.
    lexical_learning_rate: float = 1e-4
    vocabulary_size: int = ASL_TFIDF["max_features"]


class NothingToLearnError(ValueError):
    """No (author, day) pair in the window: nothing says whose papers are alike."""


@dataclass(frozen=True, slots=True)
class _Words:
    """The lexical part being learned: the corpus's vocabulary and idf, each paper's tf-idf
    row (scipy CSR), the projection and the fixed centre of the projected rows."""

    vocabulary: tuple[str, ...]
    idf: NDArray[np.float32]
    terms: Any
    projection: torch.Tensor
    centre: torch.Tensor

    def learned(self) -> Lexicon:
        return Lexicon(
            vocabulary=self.vocabulary,
            idf=self.idf,
            projection=self.projection.detach().numpy().astype(np.float32),
            centre=self.centre.numpy().astype(np.float32),
        )


@dataclass(frozen=True, slots=True)
class _Inputs:
    """What a paper enters the map as: its embedding (less their centre) and its words."""

    vectors: torch.Tensor
    centre: torch.Tensor
    words: _Words | None

    def joined(self, rows: list[int]) -> torch.Tensor:
        import torch

        parts = [self.vectors[rows] - self.centre]
        if self.words is not None:
            words = self.words
            parts.append(_lexical(words.terms[rows], words.projection) - words.centre)
        return torch.cat(parts, dim=1)


def train_space(
    corpus: Corpus, start: date, end: date, model: str, settings: TrainingSettings
) -> TasteSpace:
    """The taste space learned on the pairs of ``start``..``end`` (inclusive): the embedding
    centre is the mean embedding of the corpus papers announced up to ``end``, the vocabulary
    theirs."""
    import torch

    lessons = _by_day(pairs(corpus, start, end))
    if not lessons:
        raise NothingToLearnError(f"no (author, day) pair between {start} and {end}")
    torch.manual_seed(settings.seed)
    seen = [row for row, paper in enumerate(corpus.papers) if paper.announced_on <= end]
    vectors = torch.tensor(corpus.vectors, dtype=torch.float32)
    inputs = _inputs(corpus, seen, vectors, settings)
    identity = torch.eye(vectors.shape[1] + settings.lexical_dimensions)
    matrix = torch.nn.Parameter(identity.clone())
    groups: list[dict[str, Any]] = [{"params": [matrix], "lr": settings.learning_rate}]
    if inputs.words is not None:
        groups.append({"params": [inputs.words.projection], "lr": settings.lexical_learning_rate})
    optimiser = torch.optim.Adam(groups)
    order = np.random.default_rng(settings.seed)
    for _ in range(settings.epochs):
        for day in order.permutation(len(lessons)):
            loss = _day_loss(lessons[day], inputs, matrix, settings.temperature)
            loss = loss + settings.identity_decay * ((matrix - identity) ** 2).sum()
            optimiser.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            optimiser.step()
    return TasteSpace(
        model=model,
        trained_from=start.isoformat(),
        trained_until=end.isoformat(),
        settings=asdict(settings) | {"pairs": sum(map(len, lessons)), "days": len(lessons)},
        matrix=matrix.detach().numpy().astype(np.float32),
        centre=inputs.centre.numpy().astype(np.float32),
        lexicon=None if inputs.words is None else inputs.words.learned(),
    )


def _inputs(
    corpus: Corpus, seen: list[int], vectors: torch.Tensor, settings: TrainingSettings
) -> _Inputs:
    """The embedding centre, and where there is a lexical part the corpus's tf-idf, its LSA
    (the projection's start) and the lexical centre: the mean of the rows projected by that
    start, kept as it is while the projection learns (W learns around that fixed offset, and
    serving subtracts the same one)."""
    import torch

    centre = vectors[seen].mean(dim=0)
    if not settings.lexical_dimensions:
        return _Inputs(vectors, centre, None)
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer

    cuts = ASL_TFIDF if len(seen) >= SMALL_CORPUS else ASL_TFIDF | SMALL_CUTS
    vectorizer = TfidfVectorizer(**cuts | {"max_features": settings.vocabulary_size})
    vectorizer.fit([corpus.texts[row] for row in seen])
    vocabulary = tuple(vectorizer.get_feature_names_out())
    if settings.lexical_dimensions >= min(len(vocabulary), len(seen)):
        raise NothingToLearnError(
            f"{len(vocabulary)} words in {len(seen)} papers: too few for "
            f"{settings.lexical_dimensions} lexical dimensions"
        )
    terms = vectorizer.transform(corpus.texts).astype(np.float32)
    svd = TruncatedSVD(settings.lexical_dimensions, random_state=settings.seed)
    svd.fit(terms[seen])
    projection = torch.nn.Parameter(torch.tensor(svd.components_.T, dtype=torch.float32))
    with torch.no_grad():
        lexical_centre = _lexical(terms[seen], projection).mean(dim=0)
    idf = vectorizer.idf_.astype(np.float32)
    return _Inputs(vectors, centre, _Words(vocabulary, idf, terms, projection, lexical_centre))


def _lexical(terms: Any, projection: torch.Tensor) -> torch.Tensor:
    """Rows of tf-idf (scipy) projected, unit length: what Lexicon.vectors gives, uncentred."""
    import torch

    rows = terms.tocoo()
    sparse = torch.sparse_coo_tensor(
        torch.tensor(np.vstack([rows.row, rows.col])),
        torch.tensor(rows.data, dtype=torch.float32),
        rows.shape,
        check_invariants=True,
    )
    return torch.nn.functional.normalize(torch.sparse.mm(sparse, projection), dim=-1)


def _by_day(found: list[Pair]) -> list[list[Pair]]:
    days: dict[date, list[Pair]] = defaultdict(list)
    for pair in found:
        days[pair.day].append(pair)
    return [days[day] for day in sorted(days)]


def _day_loss(
    lessons: list[Pair], inputs: _Inputs, matrix: torch.Tensor, temperature: float
) -> torch.Tensor:
    """Minus the mean log-probability of each author's own papers among the day's papers."""
    import torch

    pool = lessons[0].pool  # every lesson of a day has the day's papers as its pool
    rows = sorted(set(pool).union(*(lesson.profile for lesson in lessons)))
    at = {row: position for position, row in enumerate(rows)}
    mapped = torch.nn.functional.normalize(inputs.joined(rows) @ matrix.T, dim=-1)
    profiles = torch.stack(
        [mapped[[at[row] for row in lesson.profile]].mean(dim=0) for lesson in lessons]
    )
    chances = torch.log_softmax(profiles @ mapped[[at[row] for row in pool]].T / temperature, 1)
    where = {row: column for column, row in enumerate(pool)}
    losses = [
        -chances[i, [where[row] for row in sorted(lesson.relevant)]].mean()
        for i, lesson in enumerate(lessons)
    ]
    return torch.stack(losses).mean()
