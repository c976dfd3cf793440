"""What the ranking already knows about an author, said in words instead of a "trust" score:
how often Hugging Face featured their papers and how many upvotes those drew, the chance
Paperboy gave their latest paper, and how their close collaborators' other papers fared.

Beside them, the author's collaboration graph as a picture the server draws (pure geometry):
the author sits in the middle and their closest co-authors around them, each joined by a line
as thick as the papers they share, with the topic most of those papers are in. The page draws
it as SVG, without JavaScript, beside the same facts as a table.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from dataclasses import dataclass
from datetime import date

from sqlalchemy import ColumnElement, Select, func, select
from sqlalchemy.orm import Session

from app.core.explanations import chance_words
from app.core.models import DayScore, Edition, HfDailyPaper, Paper, PaperAuthor
from app.web.view_models import Collaborator

# A co-author with at least this many shared papers is of the author's team.
TEAM_SHARED_PAPERS = 2


@dataclass(frozen=True)
class LatestChance:
    """The chance the trending model gave the author's newest ranked paper."""

    arxiv_id: str
    title: str
    day: date
    chance: float


@dataclass(frozen=True)
class Organization:
    """A Hugging Face organization the author's papers were submitted under."""

    slug: str
    name: str
    papers: int


@dataclass(frozen=True)
class AuthorFacts:
    featured: int  # their papers on Hugging Face's daily page
    median_upvotes: float | None  # over those, each at its best count
    latest: LatestChance | None
    team: int  # close collaborators (TEAM_SHARED_PAPERS shared papers or more)
    team_featured: int  # their featured papers without this author
    organizations: list[Organization]

    def sentences(self, name: str) -> list[str]:
        """The facts as a reader reads them."""
        said = [_featured(name, self.featured, self.median_upvotes)]
        if self.latest is not None:
            said.append(
                f"Paperboy's estimate at announcement for their latest ranked paper "
                f"({self.latest.day:%d %b %Y}): {chance_words(self.latest.chance)}."
            )
        if self.team:
            people = "collaborator" if self.team == 1 else "collaborators"
            said.append(
                f"Their {self.team} close {people} (two shared papers or more) had "
                f"{_papers(self.team_featured)} featured without them."
            )
        return said


def _featured(name: str, featured: int, median: float | None) -> str:
    if not featured or median is None:
        return f"Hugging Face has not featured a paper by {name} that Paperboy holds."
    return (
        f"Hugging Face featured {_papers(featured)} by {name}, with a median of {median:g} upvotes."
    )


def _papers(count: int) -> str:
    return f"{count} paper" if count == 1 else f"{count} papers"


def author_facts(
    session: Session,
    key: str,
    collaborators: list[Collaborator],
    among: ColumnElement[bool] | None = None,
) -> AuthorFacts:
    """What the ranking knows of the name's papers (``among`` narrows them to a person's)."""
    mine = select(PaperAuthor.arxiv_id).where(PaperAuthor.author_key == key)
    if among is not None:
        mine = mine.where(among)
    upvotes = _best_upvotes(session, mine)
    team = [one.author.key for one in collaborators if one.shared_papers >= TEAM_SHARED_PAPERS]
    return AuthorFacts(
        featured=len(upvotes),
        median_upvotes=statistics.median(upvotes.values()) if upvotes else None,
        latest=_latest_chance(session, mine),
        team=len(team),
        team_featured=_team_featured(session, mine, team),
        organizations=_organizations(session, mine),
    )


def _best_upvotes(session: Session, mine: Select[str]) -> dict[str, int]:
    rows = session.execute(
        select(HfDailyPaper.arxiv_id, func.max(HfDailyPaper.upvotes))
        .where(HfDailyPaper.arxiv_id.in_(mine))
        .group_by(HfDailyPaper.arxiv_id)
    )
    return {arxiv_id: int(best) for arxiv_id, best in rows}


def _latest_chance(session: Session, mine: Select[str]) -> LatestChance | None:
    """The newest of the papers with a chance, from the newest version of its day edition."""
    row = session.execute(
        select(Paper.arxiv_id, Paper.title, Edition.edition_date, DayScore.chance)
        .join(DayScore, DayScore.arxiv_id == Paper.arxiv_id)
        .join(Edition, Edition.id == DayScore.edition_id)
        .where(Paper.arxiv_id.in_(mine), DayScore.chance.is_not(None))
        .order_by(Edition.edition_date.desc(), Paper.arxiv_id.desc(), Edition.version.desc())
        .limit(1)
    ).first()
    if row is None or row.chance is None:
        return None
    return LatestChance(
        arxiv_id=row.arxiv_id, title=row.title, day=row.edition_date, chance=float(row.chance)
    )


def _team_featured(session: Session, mine: Select[str], team: list[str]) -> int:
    if not team:
        return 0
    theirs = select(PaperAuthor.arxiv_id).where(PaperAuthor.author_key.in_(team))
    return int(
        session.scalar(
            select(func.count(func.distinct(HfDailyPaper.arxiv_id))).where(
                HfDailyPaper.arxiv_id.in_(theirs), HfDailyPaper.arxiv_id.not_in(mine)
            )
        )
        or 0
    )


def _organizations(session: Session, mine: Select[str]) -> list[Organization]:
    rows = session.execute(
        select(
            HfDailyPaper.arxiv_id,
            HfDailyPaper.organization_name,
            HfDailyPaper.organization_fullname,
        ).where(HfDailyPaper.arxiv_id.in_(mine), HfDailyPaper.organization_name.is_not(None))
    ).all()
    papers: dict[str, set[str]] = {}
    names: dict[str, str] = {}
    for arxiv_id, slug, fullname in rows:
        if slug is None:
            continue
        papers.setdefault(slug, set()).add(arxiv_id)
        names[slug] = names.get(slug) or fullname or slug
    counts = Counter({slug: len(ids) for slug, ids in papers.items()})
    return [Organization(slug, names[slug], count) for slug, count in counts.most_common()]


# The collaboration graph, drawn.
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
