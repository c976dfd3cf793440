"""Topic label phrases' vectors kept between days: each day embeds only phrases it has not met,
gets the model's vectors all the same, and phrases no day asks for are dropped."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import select, update

from app.core.models import PhraseVector
from app.core.vectors import Matrix
from ranking.onnx_encoder import phrase_encoder
from ranking.phrase_vectors import KEEP_DAYS, PhraseMemory
from tests.conftest import Database, with_int8_query_model

DAY = date(2026, 6, 2)
MODEL = "the int8 label model"


class _Recorded:
    """The real phrase model, noting which phrases it was asked to embed."""

    def __init__(self, settings_dir: Path, database: Database, model: Path) -> None:
        settings = with_int8_query_model(database.settings, model, settings_dir)
        self._encode = phrase_encoder(settings)
        self.asked: list[list[str]] = []

    def __call__(self, phrases: Sequence[str]) -> Matrix:
        self.asked.append(list(phrases))
        return self._encode(phrases)


def _label(database: Database, model: _Recorded, phrases: list[str], day: date) -> Matrix:
    kept = PhraseMemory(database.sessions, MODEL, day)
    vectors = kept.around(model)(phrases)
    kept.keep()
    return vectors


def _kept(database: Database) -> dict[str, date]:
    with database.sessions() as session:
        rows = session.execute(select(PhraseVector.phrase, PhraseVector.used_on))
        return {row.phrase: row.used_on for row in rows}


@pytest.mark.model
def test_a_day_embeds_only_the_phrases_it_has_not_met(
    database: Database, int8_query_model: Path, tmp_path: Path
) -> None:
    model = _Recorded(tmp_path, database, int8_query_model)
    first = _label(database, model, ["video diffusion", "graph neural networks"], DAY)
    again = ["graph neural networks", "speech recognition", "video diffusion", "speech recognition"]
    second = _label(database, model, again, DAY + timedelta(days=1))
    assert model.asked == [["video diffusion", "graph neural networks"], ["speech recognition"]]
    # A phrase met before reads back the vector it was given, in the order asked (duplicates
    # too); the int8 model scales each batch apart, so a fresh batch gives nearly the same.
    assert np.array_equal(second[[2, 0]], first)
    assert float(np.min(np.sum(second * model(again), axis=1))) >= 0.98
    assert _kept(database) == {
        "video diffusion": DAY + timedelta(days=1),
        "graph neural networks": DAY + timedelta(days=1),
        "speech recognition": DAY + timedelta(days=1),
    }


@pytest.mark.model
def test_phrases_no_day_asks_for_are_dropped_and_an_older_day_keeps_the_newest_use(
    database: Database, int8_query_model: Path, tmp_path: Path
) -> None:
    model = _Recorded(tmp_path, database, int8_query_model)
    _label(database, model, ["video diffusion", "mixture of experts"], DAY)
    _label(database, model, ["video diffusion"], DAY - timedelta(days=3))  # a day ranked again
    assert _kept(database)["video diffusion"] == DAY
    later = DAY + timedelta(days=KEEP_DAYS)
    _label(database, model, ["video diffusion"], later)
    assert _kept(database) == {"video diffusion": later, "mixture of experts": DAY}
    _label(database, model, ["speech recognition"], later + timedelta(days=1))
    assert set(_kept(database)) == {"video diffusion", "speech recognition"}
    assert _label(database, model, [], later).shape[0] == 0


@pytest.mark.model
def test_labels_read_kept_vectors_beside_a_job_that_is_writing_and_keep_after_it(
    database: Database, int8_query_model: Path, tmp_path: Path
) -> None:
    model = _Recorded(tmp_path, database, int8_query_model)
    _label(database, model, ["video diffusion"], DAY)
    kept = PhraseMemory(database.sessions, MODEL, DAY + timedelta(days=1))
    with database.sessions.begin() as job:  # the ranking job, holding its writes open
        job.execute(update(PhraseVector).values(used_on=DAY))
        kept.around(model)(["video diffusion", "speech recognition"])
        assert model.asked[-1] == ["speech recognition"]
    assert set(_kept(database)) == {"video diffusion"}  # nothing written inside the job
    kept.keep()
    assert _kept(database) == {
        "video diffusion": DAY + timedelta(days=1),
        "speech recognition": DAY + timedelta(days=1),
    }
