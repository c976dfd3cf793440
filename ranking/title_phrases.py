"""How often authors put a phrase in a title, of the papers that use it (pure, read once).

A title names what a paper is about; an abstract also says how and why. A phrase that
papers often use but rarely put in their titles ("correctness depends", "poorly understood")
is filler to a topic's label, while "channel estimation" or "protein folding" heads titles.
``title_phrases.txt``, written from the corpus by ``benchmarks/title_phrases.py``, holds for
each phrase the labeller counts (one to three words, lowercase) used by enough papers: how many
papers have it in the title, and how many in the title or the opening of the abstract.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import NamedTuple

TITLE_PHRASES_FILE = Path(__file__).with_name("title_phrases.txt")
# About the share of a listed phrase's papers that have it in the title: a phrase not in the
# file (too few papers use it to tell) is taken to be typical.
TYPICAL_TITLE_SHARE = 0.3
# Papers' worth of the typical share every phrase starts from, so a phrase few papers use is
# not judged on their titles alone.
SMOOTHING_PAPERS = 5.0


class TitleUses(NamedTuple):
    """Papers with the phrase in their title, and papers using it at all."""

    in_titles: int
    papers: int


@cache
def title_uses() -> dict[str, TitleUses]:
    """The file's phrases (comment lines start with ``#``)."""
    table = {}
    for line in TITLE_PHRASES_FILE.read_text().splitlines():
        if line and not line.startswith("#"):
            phrase, in_titles, papers = line.split("\t")
            table[phrase] = TitleUses(int(in_titles), int(papers))
    return table


def title_share(phrase: str, table: dict[str, TitleUses] | None = None) -> float:
    """The share of papers using ``phrase`` that put it in their title, drawn towards the
    typical share as much as ``SMOOTHING_PAPERS`` papers would."""
    uses = (title_uses() if table is None else table).get(phrase, TitleUses(0, 0))
    prior = SMOOTHING_PAPERS * TYPICAL_TITLE_SHARE
    return (uses.in_titles + prior) / (uses.papers + SMOOTHING_PAPERS)
