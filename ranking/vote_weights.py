"""How much each Paperboy vote counts in the ranking (pure: ballots in, weights out).

A vote is worth one when its voter is **established**: the mailbox was proven (a subscription
confirmed, or a first sign-in) at least ``established_after`` before the vote was cast. Judged
at the moment of the vote, so a weight never changes later and a rebuild of an old edition
gives the old order. Two limits bound what a person with many addresses can add to a paper:

1. the votes of voters not yet established add together at most ``new_voters_cap`` votes,
   shared equally among them (addresses are free; a week of waiting is not);
2. the votes from one mail domain add together at most ``domain_cap`` votes, scaled down
   equally (a catch-all domain is any number of addresses), except on the large public mail
   providers of ``public_domains``, where one domain holds millions of distinct people and
   each account costs a sign-up.

So a hundred votes that are all new, or all from one domain, or some of each, add at most
``new_voters_cap + domain_cap`` votes (five). A domain is its registrable part
(``cs.example.edu`` and ``a.cs.example.edu`` are one), since a wildcard MX gives a person
every subdomain; and one mailbox is one voter: ``ada+1@`` and ``ada@`` are one mailbox, as are
``a.da@gmail.com`` and ``ada@gmail.com``, and Yahoo's ``ada-x@yahoo.com`` and
``ada@yahoo.com``, so sub-addressing buys nothing.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from accounts.addresses import mailbox

__all__ = ["Ballot", "VoteRules", "mailbox", "registrable_domain", "weigh"]

# Large providers whose domain is shared by millions of unrelated people. A provider missing
# here is only capped like any other domain: the list can be short. Not iCloud (icloud.com,
# me.com): its Hide My Email gives one account as many addresses there as it asks for.
PUBLIC_MAIL_DOMAINS = frozenset(
    {
        "gmail.com",
        "outlook.com",
        "hotmail.com",
        "live.com",
        "yahoo.com",
        "proton.me",
        "protonmail.com",
        "qq.com",
        "163.com",
    }
)
# Country domains where names are registered one level down (ox.ac.uk, example.co.jp).
_SECOND_LEVELS = frozenset(
    {"ac", "co", "com", "edu", "gov", "gob", "go", "ltd", "mil", "ne", "net", "or", "org", "plc"}
)


@dataclass(frozen=True, slots=True)
class Ballot:
    """One vote as counted: who (the mailbox key), for what, when, and the mailbox's earliest
    proof (None: never proven)."""

    voter: str
    arxiv_id: str
    voted_on: date
    cast_at: datetime
    proven_at: datetime | None


@dataclass(frozen=True, slots=True)
class VoteRules:
    """The limits of the module docstring, in votes (one established voter's vote is 1)."""

    established_after: timedelta = timedelta(days=7)
    new_voters_cap: float = 2.0
    domain_cap: float = 3.0
    public_domains: frozenset[str] = field(default=PUBLIC_MAIL_DOMAINS)


def weigh(ballots: Sequence[Ballot], rules: VoteRules = VoteRules()) -> list[float]:
    """One weight per ballot, in the ballots' order; the limits hold per paper."""
    weights = [0.0] * len(ballots)
    by_paper: dict[str, list[int]] = defaultdict(list)
    for index, ballot in enumerate(ballots):
        by_paper[ballot.arxiv_id].append(index)
    for indices in by_paper.values():
        paper = [ballots[index] for index in indices]
        for index, weight in zip(indices, _paper_weights(paper, rules), strict=True):
            weights[index] = weight
    return weights


def registrable_domain(voter: str) -> str:
    """The part of the address's domain a person registers, approximated without the public
    suffix list: it errs toward one domain for many, which only caps more."""
    labels = mailbox(voter).rpartition("@")[2].split(".")
    one_level_down = len(labels) > 2 and len(labels[-1]) == 2 and labels[-2] in _SECOND_LEVELS
    return ".".join(labels[-3 if one_level_down else -2 :])


def _paper_weights(ballots: Sequence[Ballot], rules: VoteRules) -> list[float]:
    established = _counted(ballots, rules)
    new = sum(1 for counts_fully in established.values() if not counts_fully)
    share = min(1.0, rules.new_voters_cap / new) if new else 0.0
    weights = [0.0] * len(ballots)
    for index, counts_fully in established.items():
        weights[index] = 1.0 if counts_fully else share
    _cap_domains(ballots, weights, rules)
    return weights


def _counted(ballots: Sequence[Ballot], rules: VoteRules) -> dict[int, bool]:
    """The ballot that counts for each mailbox (its first), and whether its voter was
    established then (by the mailbox's earliest proof, through any of its addresses)."""
    first: dict[str, int] = {}
    proofs: dict[str, list[datetime]] = defaultdict(list)
    for index, ballot in enumerate(ballots):
        key = mailbox(ballot.voter)
        if ballot.proven_at is not None:
            proofs[key].append(ballot.proven_at)
        seen = first.get(key)
        if seen is None or _order(ballot) < _order(ballots[seen]):
            first[key] = index
    return {
        index: _proven_before(min(proofs[key], default=None), ballots[index].cast_at, rules)
        for key, index in first.items()
    }


def _proven_before(proven_at: datetime | None, cast_at: datetime, rules: VoteRules) -> bool:
    return proven_at is not None and proven_at <= cast_at - rules.established_after


def _cap_domains(ballots: Sequence[Ballot], weights: list[float], rules: VoteRules) -> None:
    by_domain: dict[str, list[int]] = defaultdict(list)
    for index, ballot in enumerate(ballots):
        by_domain[registrable_domain(ballot.voter)].append(index)
    for domain, indices in by_domain.items():
        total = sum((weights[index] for index in indices), 0.0)
        if domain not in rules.public_domains and total > rules.domain_cap:
            for index in indices:
                weights[index] *= rules.domain_cap / total


def _order(ballot: Ballot) -> tuple[datetime, str]:
    return ballot.cast_at, ballot.voter
