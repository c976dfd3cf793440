"""How well a name is split when one of its people is verified: ``paperboy eval-authors
--method verified``, on the synthetic merged names of :mod:`app.services.author_eval`.

In each merged name the constituent author with the most papers is verified, and its claim
lists its papers announced before the midpoint of the window, as arXiv's author feed would
have listed them then. A name whose verified author has no paper on one side of the midpoint
is skipped (and counted). The listed papers are known, so they are left out of the score:
B-cubed F1 is computed over the *unlisted* papers only, clusters and truth both restricted to
them, for ``verified`` (:func:`ranking.verified_people.split_verified`) beside ``paperboy``
(the split knowing no claim) and ``one_per_name``, each splitting all the name's papers.
A name's verified author is *split off* when one of its later papers is outside the cluster
holding most of its listed papers.

The feed counts as read at the midpoint: the split knows which papers came before it. The
feed lists every earlier paper, as the goal's measure asks; ``--feed-share`` measures a feed
that leaves some out, as a real one may (a paper a co-author submitted is listed only once
the claimant links it to their arXiv account).
"""

from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from app.services.author_eval import (
    KINDS,
    Authored,
    Merged,
    as_works,
    bcubed,
    cell,
    works_of,
)
from ranking.people import Work, split_people
from ranking.trending.metrics import summarise
from ranking.verified_people import VERIFIED_THRESHOLD as VERIFIED_THRESHOLD
from ranking.verified_people import VerifiedParams as VerifiedParams
from ranking.verified_people import split_verified

# A split of a name's works knowing the positions of the listed ones and of the older ones.
VerifiedMethod = Callable[[Sequence[Work], frozenset[int], frozenset[int]], list[int]]


def verified_methods(params: VerifiedParams | None = None) -> dict[str, VerifiedMethod]:
    """The split knowing the claim, the split as shipped, and every name one person."""
    chosen = params or VerifiedParams()
    return {
        "verified": lambda works, listed, older: split_verified(works, listed, chosen, older),
        "paperboy": lambda works, listed, older: split_people(works, chosen.split),
        "one_per_name": lambda works, listed, older: [0] * len(works),
    }


def midpoint(start: date, end: date) -> date:
    """The day splitting the window in two: papers before it are listed."""
    return start + timedelta(days=(end - start).days // 2)


@dataclass(frozen=True, slots=True)
class Claim:
    """A merged name with its verified author: who wrote each paper, which are listed, and
    which of all the name's papers came before the feed was read (the midpoint)."""

    verified: int
    truth: list[int]
    listed: frozenset[int]
    later: list[int]
    older: frozenset[int]


def claim_of(corpus: Authored, name: Merged, middle: date, feed_share: float = 1.0) -> Claim | None:
    """The claim of the name's author with the most papers (the first of them on a tie), or
    None where its feed lists no paper before ``middle`` or the author has none from it on.
    The feed lists ``feed_share`` of the earlier papers (each picked by its id's hash)."""
    papers, truth = works_of(corpus, name.authors)
    verified = max(range(len(name.authors)), key=lambda n: len(corpus.papers[name.authors[n]]))
    own = [index for index, author in enumerate(truth) if author == verified]
    later = [index for index in own if papers[index].announced_on >= middle]
    listed = frozenset(
        index
        for index in own
        if papers[index].announced_on < middle and _in_feed(papers[index].arxiv_id, feed_share)
    )
    if not listed or not later:
        return None
    older = frozenset(index for index, paper in enumerate(papers) if paper.announced_on < middle)
    return Claim(verified=verified, truth=truth, listed=listed, later=later, older=older)


def _in_feed(arxiv_id: str, share: float) -> bool:
    """Whether a feed listing ``share`` of an author's papers lists this one: the same answer
    in every run."""
    return zlib.crc32(arxiv_id.encode()) < share * 2**32


def score_claim(labels: Sequence[int], claim: Claim) -> dict[str, float]:
    """B-cubed over the unlisted papers, and whether a later paper was split off."""
    unlisted = [index for index in range(len(labels)) if index not in claim.listed]
    scores = bcubed([labels[i] for i in unlisted], [claim.truth[i] for i in unlisted])
    home = Counter(labels[index] for index in sorted(claim.listed)).most_common(1)[0][0]
    return scores | {"split_off": float(any(labels[index] != home for index in claim.later))}


def evaluate_verified(
    corpus: Authored,
    merged: Sequence[Merged],
    middle: date,
    split: Mapping[str, VerifiedMethod],
    feed_share: float = 1.0,
) -> Any:
    """The results document: the skipped names, per scored name and per method the scores,
    and per method (overall and per kind) the mean with a 95% bootstrap interval."""
    rows: list[dict[str, Any]] = []
    for name in merged:
        claim = claim_of(corpus, name, middle, feed_share)
        if claim is None:
            continue
        papers, _ = works_of(corpus, name.authors)
        works = as_works(corpus, papers, name.authors)
        scored = {
            method: score_claim(run(works, claim.listed, claim.older), claim)
            for method, run in split.items()
        }
        row = {"kind": name.kind, "authors": list(name.authors), "papers": len(papers)}
        rows.append(row | {"listed": len(claim.listed), "methods": scored})
    return {
        "midpoint": middle.isoformat(),
        "feed_share": feed_share,
        "names": len(rows),
        "skipped": len(merged) - len(rows),
        "kinds": dict(Counter(row["kind"] for row in rows)),
        "summary": {method: _summary(rows, method) for method in split},
        "by_kind": {
            kind: {m: _summary([r for r in rows if r["kind"] == kind], m) for m in split}
            for kind in KINDS
        },
        "rows": rows,
    }


def _summary(rows: Sequence[Mapping[str, Any]], method: str) -> Any:
    return summarise([row["methods"][method] for row in rows])


def verified_table(results: Mapping[str, Any]) -> str:
    """Summary as a markdown table: one row per method, then F1 per kind."""
    metrics = ("bcubed_f1", "bcubed_precision", "bcubed_recall", "split_off")
    lines = [
        "| method (unlisted papers) | B-cubed F1 | precision | recall | split off |",
        "|---|---|---|---|---|",
    ]
    for method, summary in results["summary"].items():
        cells = [cell(summary.get(metric)) for metric in metrics]
        lines.append(f"| {method} | {' | '.join(cells)} |")
    for kind, by_method in results["by_kind"].items():
        cells = [f"{m} {cell(s.get('bcubed_f1'))}" for m, s in by_method.items()]
        lines.append(f"kind {kind}: {', '.join(cells)}")
    return "\n".join(lines)
