"""A store of twelve weeks of papers with a subject planted to rise, for the radar's tests.

Twenty steady themes get three papers a week; a **riser** (a new direction in the vector
space, its titles naming "quantum origami folding") has none for eight weeks, then five a
week; a **spike** has fourteen papers in the last week alone. Papers are imported with
``paperboy import`` from daily-listing lines and their vectors stored as precomputed vectors,
so the radar reads them as it reads any store.
"""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path

import numpy as np

from app.cli.main import main
from app.core.db import session_scope
from app.core.vectors import normalise
from ranking.embeddings import import_matrix
from tests.conftest import Database

FIRST_WEEK = date(2026, 1, 5)
WEEKS = 12
FLAGGED_WEEK = FIRST_WEEK + timedelta(weeks=WEEKS - 1)
THEMES = 20
HOSTILE = "<script>alert(1)</script>"


def _vector(direction: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    noise: np.ndarray = 0.25 * rng.standard_normal(direction.shape) / np.sqrt(len(direction))
    moved: np.ndarray = direction + noise
    return moved


def plant(database: Database, tmp_path: Path, *, weeks: int = WEEKS) -> dict[str, list[str]]:
    """Store the papers; the ids of the riser's and the spike's papers, oldest first."""
    rng = np.random.default_rng(7)
    directions = normalise(rng.standard_normal((THEMES + 2, 384)).astype(np.float32))
    lines, vectors = [], []
    planted: dict[str, list[str]] = {"riser": [], "spike": []}
    first = FIRST_WEEK + timedelta(weeks=WEEKS - weeks)
    for week in range(WEEKS - weeks, WEEKS):
        monday = FIRST_WEEK + timedelta(weeks=week)
        papers = [(t, "theme") for t in range(THEMES) for _ in range(3)]
        papers += [(THEMES, "riser")] * (5 if week >= 8 else 0)
        papers += [(THEMES + 1, "spike")] * (14 if week == WEEKS - 1 else 0)
        for number, (theme, kind) in enumerate(papers):
            arxiv_id = f"26{week + 1:02d}.{number + 10000:05d}"
            day = monday + timedelta(days=number % 5)
            lines.append(_line(arxiv_id, kind, theme, number, day))
            vectors.append(_vector(directions[theme], rng))
            if kind in planted:
                planted[kind].append(arxiv_id)
    source = tmp_path / "planted.jsonl"
    source.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    assert main(["import", str(source), "--quiet"], database.settings) == 0
    ids = [str(line["id"]) for line in lines]
    with session_scope(database.sessions) as session:
        matrix = normalise(np.stack(vectors).astype(np.float32))
        import_matrix(session, matrix, ids, database.settings.embedding_model)
    assert first <= FLAGGED_WEEK
    return planted


def _line(arxiv_id: str, kind: str, theme: int, number: int, day: date) -> dict[str, object]:
    if kind == "riser":
        title = f"Quantum origami folding for soft robot number {number}"
        if number == THEMES * 3:  # the riser's first paper each week
            title = f"{HOSTILE} {title}"
        summary = "We fold sheets by quantum origami folding and measure the soft robot gait."
    elif kind == "spike":
        title = f"A benchmark of river delta sediment sensors, part {number}"
        summary = "River delta sediment sensors are compared on one shared benchmark."
    else:
        title = f"Steady theme {theme} results, paper {number}"
        summary = f"We report results on steady theme {theme} with a standard method."
    return {
        "id": arxiv_id,
        "title": title,
        "summary": summary,
        "authors": [f"Author {theme} {number}"],
        "categories": ["cs.LG"],
        "listing_dates": [day.isoformat()],
    }
