"""The diversity rule: no topic monopolises the top of an edition (pure).

Positions are filled block by block (``window`` positions a block: the top ten, the next
ten, ...). Within a block, at most ``max_per_topic`` papers may share a topic; a paper that
would exceed it waits for the next block, keeping its place in the score order. Papers
without a topic are never held back. If only held-back papers remain, they fill the block.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class DiversityRule:
    max_per_topic: int = 3
    window: int = 10

    def describe(self) -> str:
        return f"at most {self.max_per_topic} per topic in each {self.window} positions"


def diversify(
    topics: Sequence[int | None], rule: DiversityRule, limit: int | None = None
) -> list[int]:
    """Indices of ``topics`` (given best first) in their published order, ``limit`` at most."""
    waiting = list(range(len(topics)))
    limit = len(topics) if limit is None else min(limit, len(topics))
    order: list[int] = []
    while len(order) < limit:
        block, waiting = _fill_block(waiting, topics, rule)
        order.extend(block)
    return order[:limit]


def _fill_block(
    waiting: list[int], topics: Sequence[int | None], rule: DiversityRule
) -> tuple[list[int], list[int]]:
    counts: Counter[int] = Counter()
    block: list[int] = []
    held: list[int] = []
    for position, index in enumerate(waiting):
        if len(block) == rule.window:
            return block, held + waiting[position:]
        topic = topics[index]
        if topic is not None and counts[topic] >= rule.max_per_topic:
            held.append(index)
            continue
        if topic is not None:
            counts[topic] += 1
        block.append(index)
    # Fewer than a block's worth passed the rule: the held-back papers fill the rest.
    room = rule.window - len(block)
    return sorted(block + held[:room]), held[room:]
