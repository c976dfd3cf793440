"""Saved searches as digest sections ("New for …"), over a day whose matches are given."""

from dataclasses import replace

from accounts.saved_searches import SavedQuery
from digest.sections import SEARCH_SHOWN, SEARCHES_SHOWN, sectioned_picks
from digest.selection import EditionPaper, EditionView, Section, Taste
from tests.digest.test_sections import day
from tests.digest.test_selection import paper


def titled(n: int, title: str, **kinds: object) -> EditionPaper:
    return replace(paper(n, **kinds), title=title)  # type: ignore[arg-type]


def with_matches(view: EditionView, found: dict[str, list[str]]) -> EditionView:
    """The view with saved searches finding, best first, the ids ``found`` lists per query."""
    return replace(view, matcher=lambda saved: found.get(saved.query, []))


def picked(view: EditionView, taste: Taste) -> list[tuple[str, str, str]]:
    chosen = sectioned_picks(view, taste, max_per_topic=5, exclusion_cosine=0.5)
    return [(p.section, p.group, p.paper.arxiv_id[-2:]) for p in chosen.picks]


def test_each_saved_search_is_a_section_of_its_matches_best_first() -> None:
    papers = [paper(n) for n in range(1, 31)]
    view = with_matches(
        day(papers, edition_size=10),
        {"graph": ["2603.00025", "2603.00012"], "proteins": ["2603.00029"]},
    )
    taste = Taste(max_items=2, searches=(SavedQuery("graph"), SavedQuery("proteins", "q-bio.BM")))
    chosen = sectioned_picks(view, taste, max_per_topic=5, exclusion_cosine=0.5)
    assert [(p.section, p.group, p.paper.arxiv_id[-2:]) for p in chosen.picks] == [
        (Section.SEARCH, "graph", "25"),
        (Section.SEARCH, "graph", "12"),
        (Section.SEARCH, "proteins (in q-bio.BM)", "29"),
        (Section.FOR_YOU, "", "01"),
        (Section.FOR_YOU, "", "02"),
        (Section.TRENDING, "", "03"),
        (Section.TRENDING, "", "04"),
        (Section.TRENDING, "", "05"),
    ]
    assert chosen.picks[0].reason == "matches your search “graph”"
    assert chosen.searched_left_out == 0


def test_a_search_holds_a_few_papers_and_all_searches_a_few_more_and_the_rest_is_counted() -> None:
    papers = [paper(n) for n in range(1, 41)]
    everything = [p.arxiv_id for p in papers]
    queries = ("a", "b", "c", "d")
    view = with_matches(day(papers, edition_size=10), dict.fromkeys(queries, everything))
    taste = Taste(max_items=1, searches=tuple(SavedQuery(q) for q in queries))
    chosen = sectioned_picks(view, taste, max_per_topic=5, exclusion_cosine=0.5)
    searched = [p for p in chosen.picks if p.section == Section.SEARCH]
    assert len(searched) == SEARCHES_SHOWN
    assert [sum(p.group == q for p in searched) for q in queries] == [SEARCH_SHOWN] * 3 + [0]
    assert len({p.paper.arxiv_id for p in chosen.picks}) == len(chosen.picks)  # no repeats
    assert chosen.searched_left_out == len(papers) - SEARCHES_SHOWN


def test_a_followed_paper_is_not_repeated_by_a_search_and_mutes_and_minus_words_hold() -> None:
    papers = [paper(n) for n in range(1, 13)]
    papers[1] = paper(2, author="jane-doe")
    papers[2] = paper(3, topic=9)
    papers[3] = titled(4, "Graph networks for molecule design")
    papers[4] = titled(5, "Graph networks, any domain", category="math.CO")
    view = with_matches(
        day(papers, edition_size=6),
        {"graph networks -molecule": [f"2603.0000{n}" for n in (2, 3, 4, 5)]},
    )
    taste = Taste(
        max_items=1,
        categories=frozenset({"cs.LG"}),  # a saved search is asked by name, like a follow
        followed_authors=frozenset({"jane-doe"}),
        muted_topics=frozenset({9}),
        searches=(SavedQuery("graph networks -molecule"),),
    )
    assert [(s, n) for s, _, n in picked(view, taste)][:2] == [
        (Section.FOLLOWED, "02"),
        (Section.SEARCH, "05"),
    ]


def test_without_a_search_to_run_saved_searches_find_nothing() -> None:
    view = day([paper(n) for n in range(1, 6)], edition_size=3)
    taste = Taste(max_items=2, searches=(SavedQuery("graph"),))
    assert all(section != Section.SEARCH for section, _, _ in picked(view, taste))
