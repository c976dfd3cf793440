"""A web process's search index: opened from the saved files when they are the store's, built
and saved when they are missing, stale or unreadable (nothing lost, the error logged)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine
from sqlalchemy.orm import sessionmaker

from app.core.config import Settings
from app.web.app import create_app
from ranking.embedder import query_embedder
from search.database_indexes import has_vector_column
from search.in_process import REFRESH_SECONDS, SearchService
from search.index_files import current_generation, index_directory
from search.index_writer import write_search_index
from search.query import Filters, SearchSort
from tests.conftest import Database
from tests.search.test_index_files import PAPERS, fill, records

QUERY = "diffusion"


def keyword_settings(database: Database) -> Settings:
    return database.settings.model_copy(update={"search_semantic": False})


def found(service: SearchService, query: str = QUERY) -> list[str]:
    return service.search(query, Filters()).page(SearchSort.relevance, 1, 50)


def generations(directory: Path) -> list[str]:
    return sorted(entry.name for entry in directory.iterdir() if entry.name.startswith("g"))


def test_a_new_process_opens_the_saved_index_instead_of_building_it(database: Database) -> None:
    fill(database, records())
    settings = keyword_settings(database)
    directory = index_directory(settings.data_dir)
    first = SearchService(settings, database.sessions, query_embedder)
    answer = found(first)
    assert answer[:2] == ["2501.00003", "2501.00002"]
    saved = generations(directory)
    assert len(saved) == 1 and current_generation(directory) == saved[0]
    # A writer that died half-way leaves a staging directory: nobody reads it.
    (directory / ".staging-dead").mkdir()
    (directory / ".staging-dead" / "vectors.npy").write_bytes(b"\x93NUMPY half")
    second = SearchService(settings, database.sessions, query_embedder)
    assert found(second) == answer
    assert second.similar("2501.00003", 3) == first.similar("2501.00003", 3)
    assert second.index().generation == saved[0]
    assert generations(directory) == saved  # opened, not built again


def test_papers_added_since_the_index_was_saved_make_the_next_process_rebuild_it(
    database: Database,
) -> None:
    fill(database, records())
    settings = keyword_settings(database)
    directory = index_directory(settings.data_dir)
    found(SearchService(settings, database.sessions, query_embedder))
    before = current_generation(directory)
    fill(database, records((("2501.00007", "Zebrafish diffusion", "Imaging.", "Eva Lund"),)), 1)
    later = SearchService(settings, database.sessions, query_embedder)
    assert "2501.00007" in found(later)
    assert current_generation(directory) not in (None, before)
    assert later.index().generation == current_generation(directory)


class Clock:
    """Seconds that the test moves on."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_running_process_opens_the_embed_steps_new_generation_after_refresh_seconds(
    database: Database,
) -> None:
    fill(database, records())
    settings, clock = keyword_settings(database), Clock()
    service = SearchService(
        settings=settings, sessions=database.sessions, query_model=query_embedder, clock=clock
    )
    assert "2501.00007" not in found(service)
    fill(database, records((("2501.00007", "Zebrafish diffusion", "Imaging.", "Eva Lund"),)), 1)
    with database.sessions() as session:  # the embed step's writer, in the job's process
        directory = index_directory(settings.data_dir)
        written = write_search_index(session, directory, settings.embedding_model)
    clock.now += REFRESH_SECONDS - 1
    assert "2501.00007" not in found(service)  # not looked at again yet
    clock.now += 1
    assert "2501.00007" in found(service)
    assert service.index().generation == written.generation  # opened, not built again


def test_while_one_request_checks_the_store_the_others_search_what_is_loaded(
    database: Database,
) -> None:
    # The check needs a connection; under load every one may be held by requests that would
    # wait for the check. Here the only connection is held: one caller waits, the other not.
    fill(database, records())
    settings, clock = keyword_settings(database), Clock()
    engine = create_engine(database.engine.url, pool_size=1, max_overflow=0, pool_timeout=120)
    service = SearchService(settings, sessionmaker(engine), query_embedder, clock=clock)
    loaded = service.index()
    clock.now += REFRESH_SECONDS
    with engine.connect() as held, ThreadPoolExecutor(2) as callers:
        asked = [callers.submit(service.index) for _ in range(2)]
        # A guard against a hang, not a timing: one caller must not wait for the check.
        answered, _ = wait(asked, timeout=60, return_when=FIRST_COMPLETED)
        assert [future.result() for future in answered] == [loaded]
        held.close()  # the check gets its connection and ends
        assert all(future.result(timeout=120) is not None for future in asked)
    engine.dispose()


def _truncate_vectors(generation: Path) -> None:
    (generation / "vectors.npy").write_bytes((generation / "vectors.npy").read_bytes()[:100])


def _drop_meta(generation: Path) -> None:
    (generation / "meta.json").unlink()


def _shorten_ids(generation: Path) -> None:
    (generation / "ids.txt").write_text("2501.00001")


def _point_at_nothing(generation: Path) -> None:
    (generation.parent / "current").write_text("g-lost\n")


@pytest.mark.parametrize("damage", [_truncate_vectors, _drop_meta, _shorten_ids, _point_at_nothing])
def test_an_unreadable_index_is_logged_and_rebuilt_with_every_paper(
    database: Database, damage: Callable[[Path], None], caplog: pytest.LogCaptureFixture
) -> None:
    fill(database, records())
    settings = keyword_settings(database)
    directory = index_directory(settings.data_dir)
    answer = found(SearchService(settings, database.sessions, query_embedder))
    damaged = current_generation(directory)
    assert damaged is not None
    damage(directory / damaged)
    with caplog.at_level(logging.ERROR, logger="search.in_process"):
        again = SearchService(settings, database.sessions, query_embedder)
        assert found(again) == answer
    assert any("search index unreadable" in r.getMessage() for r in caplog.records)
    assert current_generation(directory) not in (None, damaged)
    assert again.index().paper_count == len(PAPERS)


def test_processes_starting_together_build_the_index_once(database: Database) -> None:
    fill(database, records())
    settings = keyword_settings(database)
    services = [SearchService(settings, database.sessions, query_embedder) for _ in range(3)]
    answers: list[list[str]] = []
    threads = [threading.Thread(target=lambda s=s: answers.append(found(s))) for s in services]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(answers) == 3 and answers[0] == answers[1] == answers[2]
    # Each waited for the one builder, then opened what it saved.
    assert len(generations(index_directory(settings.data_dir))) == 1


@pytest.mark.model
def test_with_semantic_search_the_app_opens_the_index_and_loads_the_model_as_it_starts(
    database: Database,
) -> None:
    fill(database, records(), dimensions=384)  # the model's: queries are embedded
    settings = database.settings.model_copy(update={"search_preload": True})
    directory = index_directory(settings.data_dir)
    in_process = not has_vector_column(database.engine)  # else PostgreSQL searches itself
    with TestClient(create_app(settings)) as client:
        # Before any search: the start built and saved the index (where it is in the process).
        assert (current_generation(directory) is not None) == in_process
        answer = client.get("/api/papers/search", params={"q": "video diffusion"})
        assert answer.status_code == 200
        assert answer.json()[0]["paper"]["id"] == "2501.00003"
