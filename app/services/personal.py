"""What ``paperboy eval-personal`` and ``train-taste-space`` take around their use cases
(``app.services.personal_eval``, ``app.services.taste_training``): the taste space asked for,
checked against the embeddings' model, and the days as a digest run sees them. Files only.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.core.config import Settings
from app.services.corpus_files import load_labels
from app.services.personal_days import DayViews
from app.services.personal_pairs import Corpus
from digest.taste_space import TasteSpace as TasteSpace
from digest.taste_space import TasteSpaceError as TasteSpaceError
from digest.taste_space import load_space, space_for
from digest.taste_space import save_space as save_space
from ranking.day_topics import topic_params
from ranking.editions import diversity_rule
from ranking.trending.model import TrendingModel
from ranking.trending.replay import Replay
from ranking.trending.scorer import TrendingScorer


def taste_space(model: str, path: Path | None) -> TasteSpace | None:
    """The shipped space for ``model`` (None for another model), or the file asked for, which
    must have been learned on ``model``'s vectors."""
    if path is None:
        return space_for(model)
    space = load_space(path)
    if space.model != model:
        raise TasteSpaceError(
            f"{path} maps vectors of {space.model}, and these embeddings are {model}'s"
        )
    return space


def described(space: TasteSpace) -> dict[str, Any]:
    """The space's identity, as a results file records it."""
    return {
        "model": space.model,
        "trained_from": space.trained_from,
        "trained_until": space.trained_until,
        "lexical_dimensions": 0 if space.lexicon is None else space.lexicon.dimensions,
    }


def day_views(
    settings: Settings,
    corpus: Corpus,
    space: TasteSpace | None,
    model: TrendingModel,
    label_files: Sequence[Path],
) -> DayViews:
    """The corpus's days as a digest run sees them, the trending model replaying them."""
    vectors = {
        paper.arxiv_id: row for paper, row in zip(corpus.papers, corpus.vectors, strict=True)
    }
    return DayViews(
        corpus=corpus,
        replay=Replay(corpus.papers, vectors, load_labels(label_files)),
        scorer=TrendingScorer(model),
        topics=topic_params(settings),
        rule=diversity_rule(settings),
        edition_size=settings.edition_size,
        space=space,
    )
