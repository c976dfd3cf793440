"""How much each vote counts: new voters and one domain's voters add little together."""

from datetime import UTC, datetime, timedelta

import pytest

from ranking.vote_weights import Ballot, mailbox, registrable_domain, weigh

PAPER, OTHER = "2512.16465", "2512.16698"
CAST_AT = datetime(2025, 12, 19, 12, tzinfo=UTC)
LONG_AGO, YESTERDAY = CAST_AT - timedelta(days=30), CAST_AT - timedelta(days=1)


def ballot(
    voter: str, proven_at: datetime | None = LONG_AGO, paper: str = PAPER, minute: int = 0
) -> Ballot:
    cast_at = CAST_AT + timedelta(minutes=minute)
    return Ballot(
        voter=voter, arxiv_id=paper, voted_on=cast_at.date(), cast_at=cast_at, proven_at=proven_at
    )


def counted(ballots: list[Ballot]) -> float:
    return sum(weigh(ballots))


def test_a_hundred_new_voters_add_no_more_than_two_established_voters() -> None:
    new = [ballot(f"reader{n}@gmail.com", YESTERDAY) for n in range(100)]
    assert counted(new) == pytest.approx(2.0)


def test_a_hundred_voters_of_one_catch_all_domain_add_no_more_than_three() -> None:
    one_domain = [ballot(f"reader{n}@catch-all.example") for n in range(100)]
    assert counted(one_domain) == pytest.approx(3.0)


def test_a_hundred_votes_each_new_or_from_one_domain_add_no_more_than_five() -> None:
    new = [ballot(f"reader{n}@gmail.com", YESTERDAY) for n in range(50)]
    one_domain = [ballot(f"reader{n}@catch-all.example") for n in range(50)]
    never_proven = [ballot(f"ghost{n}@catch-all.example", None) for n in range(50)]
    assert counted(new + one_domain) == pytest.approx(5.0)
    assert counted(new + one_domain + never_proven) <= 5.0 + 1e-9


def test_established_voters_of_a_large_public_provider_each_count_fully() -> None:
    assert counted([ballot(f"reader{n}@gmail.com") for n in range(100)]) == 100.0


def test_a_few_new_voters_or_colleagues_count_fully() -> None:
    assert counted([ballot("ada@gmail.com", YESTERDAY)]) == 1.0
    assert counted([ballot("ada@gmail.com", YESTERDAY), ballot("bob@gmail.com", None)]) == 2.0
    assert counted([ballot(f"reader{n}@cs.example.edu") for n in range(3)]) == 3.0


def test_a_voter_counts_fully_once_the_mailbox_was_proven_a_week_before_the_vote() -> None:
    week = timedelta(days=7)
    new = [ballot(f"reader{n}@gmail.com", YESTERDAY) for n in range(10)]
    assert weigh([ballot("ada@gmail.com", CAST_AT - week), *new])[0] == 1.0
    assert weigh([ballot("ada@gmail.com", CAST_AT - week + timedelta(seconds=1)), *new])[0] < 1.0


def test_subdomains_are_one_domain() -> None:
    voters = [ballot(f"reader@box{n}.catch-all.example") for n in range(100)]
    assert counted(voters) == pytest.approx(3.0)
    assert registrable_domain("ada@cs.ox.ac.uk") == "ox.ac.uk"
    assert registrable_domain("ada@maths.ox.ac.uk") == "ox.ac.uk"
    assert registrable_domain("ada@Lab.Example.org") == "example.org"


def test_sub_addresses_and_gmail_dots_reach_one_mailbox_and_vote_once() -> None:
    voters = [ballot(f"ada+{n}@gmail.com") for n in range(50)]
    voters += [ballot("a.d.a@googlemail.com"), ballot("ada+x@example.org")]
    weights = weigh(voters)
    assert sorted(weights[:-1]) == [0.0] * 50 + [1.0]
    assert weights[-1] == 1.0  # another domain: another mailbox


def test_the_limits_hold_for_each_paper_apart() -> None:
    voters = [ballot(f"reader{n}@catch-all.example", paper=PAPER) for n in range(10)]
    voters += [ballot(f"reader{n}@catch-all.example", paper=OTHER) for n in range(2)]
    weights = weigh(voters)
    assert sum(weights[:10]) == pytest.approx(3.0)
    assert weights[10:] == [1.0, 1.0]


def test_a_mailbox_votes_once_and_is_proven_by_any_of_its_addresses() -> None:
    first = ballot("ada+paperboy@gmail.com", None)
    later = ballot("ada@gmail.com", LONG_AGO, minute=5)
    new = [ballot(f"reader{n}@gmail.com", YESTERDAY) for n in range(10)]
    assert weigh([first, later, *new])[:2] == [1.0, 0.0]


def test_icloud_addresses_are_capped_as_one_domain_since_hide_my_email_makes_them_freely() -> None:
    for domain in ("icloud.com", "me.com"):
        assert counted([ballot(f"x{n}.relay@{domain}") for n in range(100)]) == pytest.approx(3.0)


def test_yahoos_disposable_addresses_reach_their_base_mailbox_and_vote_once() -> None:
    assert mailbox("Ada-Papers@Yahoo.com") == "ada@yahoo.com"
    voters = [ballot(f"ada-{n}@yahoo.com") for n in range(50)] + [ballot("ada@yahoo.com")]
    assert sorted(weigh(voters)) == [0.0] * 50 + [1.0]
    assert mailbox("ada-lovelace@example.org") == "ada-lovelace@example.org"
