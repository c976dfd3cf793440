import gzip
import json
from datetime import date
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import func, select

from app.cli.main import main
from app.core.models import PaperTopic, Topic, TopicDay
from ranking.labels import label_clusters
from ranking.topics import UNASSIGNED, TopicParams, cluster, match, trend
from tests.conftest import FIXTURES, Database

DAYS = ("2025-12-17", "2025-12-18", "2025-12-19")
PROTEIN = FIXTURES / "ranking" / "protein_papers"


def _rank(database: Database, *days: str) -> None:
    for day in days:
        assert main(["rank", "--date", day], database.settings) == 0


def _topic_days(database: Database, day: str) -> dict[int, TopicDay]:
    with database.sessions() as session:
        rows = session.scalars(select(TopicDay).where(TopicDay.day == date.fromisoformat(day)))
        return {row.topic_id: row for row in rows}


def test_a_known_topic_is_continued_by_the_closest_centroid_one_to_one() -> None:
    known = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    current = np.array([[0.0, 1.0], [0.99, 0.14], [0.98, 0.2], [-1.0, 0.0]], dtype=np.float32)
    assert match(current, known, threshold=0.9) == [1, 0, None, None]


def test_a_topic_is_growing_or_fading_against_its_own_baseline() -> None:
    assert trend(12, [4, 6], is_new=False).status == "growing"
    assert trend(2, [8, 10], is_new=False).status == "fading"
    assert trend(5, [5, 6], is_new=False).status == "steady"
    assert trend(5, [], is_new=True).status == "new"
    assert trend(12, [4, 6], is_new=False).momentum == pytest.approx((12 - 5) / 6)


def test_groups_smaller_than_the_minimum_are_left_unassigned() -> None:
    rng = np.random.default_rng(0)
    big = rng.normal([5.0, 0.0, 0.0], 0.1, size=(30, 3))
    stray = rng.normal([0.0, 0.0, 5.0], 0.1, size=(2, 3))
    vectors = np.vstack([big, stray]).astype(np.float32)
    labels = cluster(vectors, TopicParams(size=16, min_size=5))
    assert (labels[30:] == UNASSIGNED).all()
    assert (labels[:30] != UNASSIGNED).all()
    assert (cluster(vectors, TopicParams(size=16, min_size=5)) == labels).all()


def test_labels_are_distinctive_phrases_without_stop_words_or_boilerplate() -> None:
    texts = [
        "We propose a novel method for protein folding with language models.",
        "Protein folding results show our approach improves structure prediction.",
        "Protein folding and structure prediction with diffusion.",
        "A new benchmark for robot grasping in clutter.",
        "Robot grasping policies: we propose a method that learns grasping.",
        "Robot grasping with tactile feedback shows results.",
    ]
    labels = label_clusters(texts, np.array([0, 0, 0, 1, 1, 1]))
    assert "protein folding" in labels[0]
    assert "robot grasping" in labels[1]
    words = {word.strip() for label in labels for word in label.replace(",", " ").split()}
    assert not words & {"we", "propose", "novel", "method", "results", "show", "a"}


def test_labels_hold_no_tex_command_adverb_or_word_that_only_describes_the_next() -> None:
    texts = [
        r"Increasingly deployed \textit{unsafe jailbreak prompts}: jailbreak detection.",
        r"Poorly understood unsafe jailbreak prompts and \emph{jailbreak detection}.",
        r"We study unsafe jailbreak prompts; jailbreak detection for chat assistants.",
    ]
    label = label_clusters(texts, np.array([0, 0, 0]))[0]
    phrases = [phrase.strip().lower() for phrase in label.split(",")]
    assert "jailbreak prompts" in phrases or "jailbreak detection" in phrases
    words = {word for phrase in phrases for word in phrase.split()}
    # TeX commands, adverbs, and "unsafe", which always describes the word after it.
    assert not words & {"textit", "emph", "increasingly", "poorly", "unsafe"}


def test_a_topic_keeps_its_id_across_consecutive_days_of_the_real_corpus(
    embedded_db: Database,
) -> None:
    _rank(embedded_db, *DAYS)
    second, third = _topic_days(embedded_db, DAYS[1]), _topic_days(embedded_db, DAYS[2])
    continued = set(second) & set(third)
    assert len(continued) >= len(second) * 3 // 4
    assert all(third[topic].status != "new" for topic in continued)


def test_a_new_topic_appears_when_its_papers_appear(embedded_db: Database, tmp_path: Path) -> None:
    _rank(embedded_db, *DAYS[:2])
    listing = tmp_path / "protein.jsonl"
    with gzip.open(PROTEIN.with_suffix(".jsonl.gz"), "rt") as source:
        records = [json.loads(line) for line in source]
    moved = [json.dumps({**record, "listing_dates": [DAYS[2]]}) + "\n" for record in records]
    listing.write_text("".join(moved))
    assert main(["import", str(listing), "--quiet"], embedded_db.settings) == 0
    matrix, ids = str(PROTEIN.with_suffix(".f16.npy")), str(PROTEIN.with_suffix(".ids.json"))
    assert main(["import-embeddings", "--matrix", matrix, "--ids", ids], embedded_db.settings) == 0
    _rank(embedded_db, DAYS[2])
    with embedded_db.sessions() as session:
        rows = session.execute(
            select(PaperTopic.topic_id, func.count())
            .where(PaperTopic.arxiv_id.in_([r["id"] for r in records]))
            .group_by(PaperTopic.topic_id)
        ).all()
    topic_id, members = max(rows, key=lambda row: row[1])
    assert members >= 10
    day = _topic_days(embedded_db, DAYS[2])[topic_id]
    assert day.status == "new"
    assert "protein" in day.label


def test_ranking_a_day_again_keeps_its_topic_ids_and_assignments(embedded_db: Database) -> None:
    _rank(embedded_db, *DAYS)
    assignments = select(PaperTopic.arxiv_id, PaperTopic.topic_id)
    with embedded_db.sessions() as session:
        before = set(session.execute(assignments).all())
        topics = session.scalar(select(func.count()).select_from(Topic))
    _rank(embedded_db, DAYS[2])
    with embedded_db.sessions() as session:
        assert set(session.execute(assignments).all()) == before
        assert session.scalar(select(func.count()).select_from(Topic)) == topics


def test_ranking_a_day_without_vectors_names_the_fix_and_stores_nothing(
    sample_db: Database, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rank", "--date", DAYS[0]], sample_db.settings) == 1
    assert "run `paperboy embed --date D`" in capsys.readouterr().err
    with sample_db.sessions() as session:
        assert session.scalar(select(func.count()).select_from(Topic)) == 0


def test_ranking_a_day_without_papers_says_so(
    embedded_db: Database, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rank", "--date", "2025-12-20"], embedded_db.settings) == 1
    assert "no papers are stored as announced on 2025-12-20" in capsys.readouterr().err


def test_a_malformed_date_is_refused(embedded_db: Database) -> None:
    with pytest.raises(SystemExit):
        main(["rank", "--date", "19.12.2025"], embedded_db.settings)
