"""The week in review written from rows (pure): which topics, in which order, and what each
sentence says."""

from __future__ import annotations

from datetime import date

from ranking.week_review import ReviewInputs, WeekPaper, review

WEEK = date(2026, 3, 2)


def _paper(arxiv_id: str, topic: int, chance: float, **changes: object) -> WeekPaper:
    fields: dict[str, object] = {
        "arxiv_id": arxiv_id,
        "title": f"Paper {arxiv_id}",
        "abstract": "A plain abstract.",
        "topic_id": topic,
        "chance": chance,
        "authors": (("ada-lovelace", "Ada Lovelace"),),
        "upvotes": None,
        "organization": None,
    }
    fields.update(changes)
    return WeekPaper(**fields)  # type: ignore[arg-type]


def _inputs(papers: list[WeekPaper], earlier: dict[int, float]) -> ReviewInputs:
    return ReviewInputs(
        week=WEEK,
        papers=papers,
        labels={1: "steady subject", 2: "rising subject", 3: "small subject"},
        earlier_counts=earlier,
        earlier_texts={2: ["Older work on sparse attention kernels."]},
    )


def _week() -> ReviewInputs:
    steady = [_paper(f"2603.1000{i}", 1, 0.3) for i in range(4)]
    rising = [
        _paper(
            f"2603.2000{i}",
            2,
            0.2 + i / 100,
            abstract="We study mixture of depths routing for sparse attention kernels.",
            upvotes=10 + i if i < 2 else None,
            organization="Org" if i == 0 else None,
        )
        for i in range(6)
    ]
    small = [_paper("2603.30000", 3, 0.01, upvotes=5)]
    return _inputs([*steady, *rising, *small], {1: 4.0, 2: 2.0, 3: 1.0})


def test_topics_are_those_expected_most_featured_rising_first() -> None:
    written = review(_week())
    assert [(t.topic_id, t.trend) for t in written.topics] == [
        (2, "rising"),
        (1, "steady"),
        (3, "steady"),
    ]
    rising = written.topics[0]
    assert rising.papers == 6 and rising.earlier == 2.0
    assert rising.representative.arxiv_id == "2603.20005"  # its highest chance
    assert [f.upvotes for f in rising.featured] == [11, 10] and rising.organizations == ["Org"]
    assert rising.authors[0].name == "Ada Lovelace" and rising.authors[0].papers == 6


def test_new_phrases_are_those_the_topic_s_papers_before_did_not_use() -> None:
    rising = review(_week()).topics[0]
    assert rising.new_phrases == ["depths routing"]  # "of" is a stop word: RAKE cuts there
    assert len(rising.phrase_papers) == 3  # the first phrase's papers, likeliest first
    assert rising.phrase_papers[0].arxiv_id == "2603.20005"


def test_coverage_counts_featured_papers_in_the_topics_named() -> None:
    many = [_paper(f"2603.4{t:04d}", 10 + t, 0.5) for t in range(12)]
    featured = _paper("2603.49999", 99, 0.001, upvotes=3)  # a topic too unlikely to be named
    written = review(_inputs([*many, featured], {}))
    assert len(written.topics) == 10 and {t.trend for t in written.topics} == {"new"}
    assert (written.featured, written.covered, written.coverage) == (1, 0, 0.0)


def test_the_same_rows_write_the_same_review() -> None:
    assert review(_week()).as_json() == review(_week()).as_json()
    assert review(_week()).as_json()["week"] == "2026-03-02"
