"""The collaboration graph's geometry: the author in the middle, co-authors round a ring."""

import math

from app.web.author_facts import (
    HEIGHT,
    MAX_LABEL,
    MAX_SHOWN,
    RING,
    WIDTH,
    SharedWork,
    collaboration_graph,
)


def _shared(count: int) -> list[SharedWork]:
    return [
        SharedWork(key=f"k{n}", name=f"Co Author {n}", shared_papers=count - n, topic="robots")
        for n in range(count)
    ]


def test_coauthors_sit_on_a_ring_round_the_author_lines_as_thick_as_shared_papers() -> None:
    graph = collaboration_graph("Ada Lovelace", _shared(4))
    assert graph is not None
    assert (graph.centre.x, graph.centre.y) == (WIDTH / 2, HEIGHT / 2)
    for node in graph.nodes:
        assert math.hypot(node.x - WIDTH / 2, node.y - HEIGHT / 2) == pytest_approx(RING)
    assert graph.nodes[0].y < graph.centre.y  # the closest co-author at the top
    widths = [edge.width for edge in graph.edges]
    assert widths == sorted(widths, reverse=True) and widths[0] == 5.0
    assert graph.edges[0].title == "Ada Lovelace and Co Author 0: 4 papers, mostly on robots"


def test_at_most_twelve_are_drawn_long_names_are_cut_and_nobody_means_no_picture() -> None:
    graph = collaboration_graph("A" * 40, _shared(MAX_SHOWN + 5))
    assert graph is not None and len(graph.nodes) == MAX_SHOWN
    assert len(graph.centre.label) == MAX_LABEL and graph.centre.label.endswith("…")
    assert collaboration_graph("Ada", []) is None


def pytest_approx(value: float) -> object:
    import pytest

    return pytest.approx(value)
