from datetime import date

from ingest.merge import Action, StoredState, decide, state_after
from ingest.records import PaperRecord


def record(version: int | None = None, announced_on: date | None = None) -> PaperRecord:
    return PaperRecord(
        arxiv_id="2503.11731",
        version=version,
        title="T",
        abstract="A",
        authors=("A B",),
        categories=("cs.CV",),
        announced_on=announced_on,
    )


def stored(version: int | None, content_hash: str = "h", day: date | None = None) -> StoredState:
    return StoredState(version=version, content_hash=content_hash, announced_on=day)


def applied(stored: StoredState | None, record: PaperRecord, record_hash: str) -> StoredState:
    return state_after(stored, record, record_hash, decide(stored, record, record_hash))


def test_a_paper_not_yet_stored_is_new() -> None:
    assert decide(None, record(1), "h") is Action.NEW


def test_a_newer_version_updates_even_with_the_same_hash() -> None:
    assert decide(stored(1), record(2), "h") is Action.UPDATE


def test_an_older_version_changes_nothing_even_with_other_text() -> None:
    assert decide(stored(3), record(2), "other") is Action.UNCHANGED


def test_without_versions_changed_text_updates_and_same_text_does_not() -> None:
    assert decide(stored(None), record(None), "other") is Action.UPDATE
    assert decide(stored(None), record(None), "h") is Action.UNCHANGED


def test_a_record_without_version_never_loses_the_stored_version() -> None:
    state = applied(stored(4), record(None), "other")
    assert state.version == 4
    assert state.content_hash == "other"


def test_the_announcement_date_only_moves_earlier() -> None:
    late, early = date(2025, 12, 18), date(2025, 12, 17)
    assert decide(stored(1, day=late), record(1, early), "h") is Action.EARLIER_ANNOUNCEMENT
    assert decide(stored(1, day=early), record(1, late), "h") is Action.UNCHANGED
    assert applied(stored(1, day=early), record(2, late), "x").announced_on == early
    assert applied(stored(3, day=late), record(1, early), "x").announced_on == early
