"""Learning the taste space (digest.taste_space) from real (author, day) pairs.

Each pair of ``eval-personal`` (app.services.personal_pairs) is a lesson: given an author's
earlier papers, their own papers of the day should come first among the day's. The map
``normalise(W (x - centre))`` is learned listwise: for each pair, a softmax over the day's
papers of the cosine to the profile's mean (in the space, at ``temperature``), and the loss is
minus the mean log-probability of the author's own papers. ``W`` starts at the identity and
is pulled back to it (``identity_decay``): with one step per announcement day, a few epochs
are all the data bear (more overfit: on 2025 pairs the embedding-only match peaked at epoch 3
and fell by a tenth at epoch 10). The settings were chosen on pairs of 2025 only
(docs/ranking.md, "Personal ranking").

Only titles, abstracts and embeddings are learned from; author keys only say which papers
are whose, as in eval-personal. torch is imported by the training alone.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass
from datetime import date
from typing import TYPE_CHECKING

import numpy as np

from app.services.personal_pairs import Corpus, Pair, pairs
from digest.taste_space import TasteSpace

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


class NothingToLearnError(ValueError):
    """No (author, day) pair in the window: nothing says whose papers are alike."""


def train_space(
    corpus: Corpus, start: date, end: date, model: str, settings: TrainingSettings
) -> TasteSpace:
    """The taste space learned on the pairs of ``start``..``end`` (inclusive), its centre the
    mean embedding of the corpus papers announced up to ``end``."""
    import torch

    lessons = _by_day(pairs(corpus, start, end))
    if not lessons:
        raise NothingToLearnError(f"no (author, day) pair between {start} and {end}")
    torch.manual_seed(settings.seed)
    seen = [row for row, paper in enumerate(corpus.papers) if paper.announced_on <= end]
    vectors = torch.tensor(corpus.vectors, dtype=torch.float32)
    centre = vectors[seen].mean(dim=0)
    identity = torch.eye(vectors.shape[1])
    matrix = torch.nn.Parameter(identity.clone())
    optimiser = torch.optim.Adam([matrix], lr=settings.learning_rate)
    order = np.random.default_rng(settings.seed)
    for _ in range(settings.epochs):
        for day in order.permutation(len(lessons)):
            loss = _day_loss(lessons[day], vectors, centre, matrix, settings.temperature)
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
        centre=centre.numpy().astype(np.float32),
    )


def _by_day(found: list[Pair]) -> list[list[Pair]]:
    days: dict[date, list[Pair]] = defaultdict(list)
    for pair in found:
        days[pair.day].append(pair)
    return [days[day] for day in sorted(days)]


def _day_loss(
    lessons: list[Pair],
    vectors: torch.Tensor,
    centre: torch.Tensor,
    matrix: torch.Tensor,
    temperature: float,
) -> torch.Tensor:
    """Minus the mean log-probability of each author's own papers among the day's papers."""
    import torch

    def mapped(rows: list[int]) -> torch.Tensor:
        return torch.nn.functional.normalize((vectors[rows] - centre) @ matrix.T, dim=-1)

    pool = lessons[0].pool  # every lesson of a day has the day's papers as its pool
    profiles = torch.stack([mapped(lesson.profile).mean(dim=0) for lesson in lessons])
    chances = torch.log_softmax(profiles @ mapped(pool).T / temperature, dim=1)
    where = {row: column for column, row in enumerate(pool)}
    losses = [
        -chances[i, [where[row] for row in sorted(lesson.relevant)]].mean()
        for i, lesson in enumerate(lessons)
    ]
    return torch.stack(losses).mean()
