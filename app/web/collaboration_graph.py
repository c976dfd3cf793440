"""An author's collaboration graph as a picture the server draws (pure geometry).

The author sits in the middle and their closest co-authors around them, each joined by a line
as thick as the papers they share, with the topic most of those papers are in. The page draws
it as SVG, without JavaScript, beside the same facts as a table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

WIDTH, HEIGHT = 640, 400
RING = 140  # the co-authors' distance from the middle
MAX_SHOWN = 12
# Names longer than this are cut: the picture is a sketch; the table beside it says it all.
MAX_LABEL = 22


@dataclass(frozen=True)
class SharedWork:
    """A co-author, the papers they share with the author, and the topic most are in."""

    key: str
    name: str
    shared_papers: int
    topic: str | None


@dataclass(frozen=True)
class Node:
    x: float
    y: float
    radius: float
    label: str
    anchor: str  # where the label sits against its point: "start", "middle" or "end"
    label_x: float
    label_y: float


@dataclass(frozen=True)
class Edge:
    x1: float
    y1: float
    x2: float
    y2: float
    width: float
    title: str


@dataclass(frozen=True)
class Graph:
    width: int
    height: int
    centre: Node
    nodes: list[Node]
    edges: list[Edge]


def collaboration_graph(name: str, shared: list[SharedWork]) -> Graph | None:
    """The picture of ``name`` and their first ``MAX_SHOWN`` co-authors (none: no picture)."""
    shown = shared[:MAX_SHOWN]
    if not shown:
        return None
    cx, cy = WIDTH / 2, HEIGHT / 2
    most = max(one.shared_papers for one in shown)
    centre = Node(
        x=cx, y=cy, radius=10.0, label=_cut(name), anchor="middle", label_x=cx, label_y=cy - 16
    )
    nodes: list[Node] = []
    edges: list[Edge] = []
    for index, one in enumerate(shown):
        # Evenly round the ring, the closest co-author at the top.
        angle = -math.pi / 2 + 2 * math.pi * index / len(shown)
        x, y = cx + RING * math.cos(angle), cy + RING * math.sin(angle)
        nodes.append(_node(x, y, one, cx, most))
        width = 1 + 4 * one.shared_papers / most
        edges.append(Edge(x1=cx, y1=cy, x2=x, y2=y, width=width, title=_edge_title(name, one)))
    return Graph(width=WIDTH, height=HEIGHT, centre=centre, nodes=nodes, edges=edges)


def _node(x: float, y: float, one: SharedWork, cx: float, most: int) -> Node:
    side = x - cx
    anchor = "middle" if abs(side) < 1 else ("start" if side > 0 else "end")
    label_x = x + (0 if anchor == "middle" else (9 if side > 0 else -9))
    label_y = y + (4 if anchor != "middle" else (-12 if y < HEIGHT / 2 else 18))
    radius = 4 + 4 * one.shared_papers / most
    return Node(
        x=x,
        y=y,
        radius=radius,
        label=_cut(one.name),
        anchor=anchor,
        label_x=label_x,
        label_y=label_y,
    )


def _edge_title(name: str, one: SharedWork) -> str:
    papers = "1 paper" if one.shared_papers == 1 else f"{one.shared_papers} papers"
    topic = f", mostly on {one.topic}" if one.topic else ""
    return f"{name} and {one.name}: {papers}{topic}"


def _cut(label: str) -> str:
    return label if len(label) <= MAX_LABEL else label[: MAX_LABEL - 1].rstrip() + "…"
