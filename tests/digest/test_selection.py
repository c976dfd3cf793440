# ruff: noqa: RUF001 (Greek letters rendered from LaTeX are meant)
from dataclasses import replace

import numpy as np
import pytest

from app.core.tex import readable
from app.core.vectors import normalise
from digest.run_inputs import phrase_vectors
from digest.selection import EditionPaper, EditionView, Liked, Taste, select
from digest.taste_space import load_space
from tests.conftest import Database
from tests.services.personal import author_day


def paper(
    n: int, topic: int | None = None, category: str = "cs.LG", author: str = "a"
) -> EditionPaper:
    return EditionPaper(
        arxiv_id=f"2603.{n:05d}",
        title=f"Paper {n}",
        authors=[author.title()],
        author_keys=[author],
        categories=[category],
        score=1.0,
        components={"momentum": 0.2, "text": 0.7},
        topic_id=topic,
        topic_label=f"topic {topic}" if topic is not None else None,
    )


def edition(papers: list[EditionPaper], vectors: list[list[float]] | None = None) -> EditionView:
    matrix = (
        np.eye(len(papers), 4, dtype=np.float32)
        if vectors is None
        else normalise(np.array(vectors))
    )
    return EditionView(papers, matrix)


def ids(picks: list) -> list[str]:  # type: ignore[type-arg]
    return [pick.paper.arxiv_id[-1] for pick in picks]


def pick(view: EditionView, taste: Taste):  # type: ignore[no-untyped-def]
    return select(view, taste, max_per_topic=2, exclusion_cosine=0.5)


def test_without_preferences_the_trending_order_is_kept_and_capped() -> None:
    view = edition([paper(n) for n in range(1, 5)])
    picks = pick(view, Taste(max_items=3))
    assert ids(picks) == ["1", "2", "3"]
    assert picks[0].reason == "#1 trending (strongest signal: text)"


def test_a_trending_pick_quotes_the_scorers_first_two_reasons_instead_of_a_component() -> None:
    words = ("3 of its authors had papers featured before", "42 upvotes", "its topic grew")
    view = edition([replace(paper(1), reasons=words), paper(2)])
    picks = pick(view, Taste(max_items=2))
    assert picks[0].reason == "#1 trending: 3 of its authors had papers featured before; 42 upvotes"
    assert picks[1].reason == "#2 trending (strongest signal: text)"  # a scorer with no words


def test_an_interest_lifts_the_closest_paper_and_says_so() -> None:
    view = edition([paper(n) for n in range(1, 4)])
    interest = np.array([[0, 0, 1, 0]], dtype=np.float32)
    picks = pick(view, Taste(max_items=3, interests=["proteins"], interest_vectors=interest))
    assert ids(picks) == ["3", "1", "2"]
    assert picks[0].reason == "matches your interest “proteins”"


def test_an_excluded_phrase_removes_papers_close_to_it() -> None:
    view = edition([paper(n) for n in range(1, 4)])
    exclusion = np.array([[1, 0, 0, 0]], dtype=np.float32)
    assert ids(pick(view, Taste(max_items=3, exclusion_vectors=exclusion))) == ["2", "3"]


def test_categories_mutes_and_follows_shape_the_digest() -> None:
    view = edition(
        [paper(1, topic=7), paper(2, category="math.CO"), paper(3, author="bo"), paper(4, topic=9)]
    )
    taste = Taste(
        max_items=5,
        categories=frozenset({"cs.LG"}),
        muted_topics=frozenset({7}),
        followed_authors=frozenset({"bo"}),
    )
    picks = pick(view, taste)
    assert ids(picks) == ["3", "4"]
    assert picks[0].reason == "by Bo, whom you follow"


def test_a_followed_person_brings_their_papers_and_not_a_namesakes() -> None:
    mine = replace(paper(1, author="zhe-qu"), author_people=(12,))
    namesake = replace(paper(2, author="zhe-qu"), author_people=(13,))
    view = edition([mine, namesake, paper(3), paper(4)])
    picks = pick(view, Taste(max_items=1, followed_people=frozenset({12})))
    assert ids(picks) == ["1"]
    assert picks[0].reason == "by Zhe-Qu, whom you follow"
    assert ids(pick(view, Taste(max_items=1, followed_people=frozenset({13})))) == ["2"]


def test_no_more_than_the_topic_cap_from_one_topic() -> None:
    view = edition([paper(n, topic=1) for n in range(1, 4)] + [paper(4, topic=2)])
    assert ids(pick(view, Taste(max_items=4))) == ["1", "2", "4"]


def test_thumbs_down_pushes_similar_papers_down() -> None:
    view = edition([paper(n) for n in range(1, 5)])
    disliked = np.array([[1, 0, 0, 0]], dtype=np.float32)
    # Paper 1, the one disliked, falls from first to third; the others rise a little.
    assert ids(pick(view, Taste(max_items=4, disliked=disliked))) == ["2", "3", "1", "4"]


def test_thumbs_up_lift_papers_sharing_their_words_and_meaning() -> None:
    topics = ["Sparse attention kernels", "Protein folding", "Robot grasping"]
    papers = [replace(paper(n), abstract=topics[n % 3]) for n in range(1, 10)]
    papers[3] = replace(papers[3], abstract="Grokking in modular arithmetic")
    liked = np.array([[0, 0, 0, 1]], dtype=np.float32)  # the 4th paper's direction
    taste = Taste(max_items=3, liked=liked, liked_texts=("When does grokking happen?",))
    assert ids(pick(edition(papers), taste)) == ["4", "1", "2"]


def _grokking_edition() -> EditionView:
    topics = ["Sparse attention kernels", "Protein folding", "Robot grasping"]
    papers = [replace(paper(n), abstract=topics[n % 3]) for n in range(1, 10)]
    papers[3] = replace(papers[3], abstract="Grokking in modular arithmetic")
    return edition(papers)


GROKKING = np.array([[0, 0, 0, 1]], dtype=np.float32)  # the 4th paper's direction


def test_a_pick_the_liked_papers_brought_in_names_the_closest_one() -> None:
    liked = np.vstack([GROKKING, [[0, 1, 0, 0]]]).astype(np.float32)
    taste = Taste(
        max_items=3,
        liked=liked,
        liked_texts=("When does grokking happen?", "Protein folding"),
        liked_papers=(
            Liked("2501.00001", "When does $\\alpha$ grokking   happen?"),
            Liked("2501.00002", "Proteins", "saved"),
        ),
    )
    picks = pick(_grokking_edition(), taste)
    assert ids(picks) == ["4", "2", "1"]
    # Papers 2 and 1 were picks without the likes too: their trending rank still says why.
    assert [p.reason.split(" (")[0] for p in picks] == [
        "close to “When does α grokking happen?” that you liked",
        "#2 trending",
        "#1 trending",
    ]


def test_a_liked_or_saved_paper_of_the_edition_says_so_and_untitled_likes_are_not_named() -> None:
    saved = Liked("2603.00004", "Paper 4", "saved")
    titled = Taste(max_items=1, liked=GROKKING, liked_texts=("Grokking",), liked_papers=(saved,))
    assert pick(_grokking_edition(), titled)[0].reason == "you saved it"
    untitled = Taste(max_items=1, liked=GROKKING, liked_texts=("Grokking",))
    assert pick(_grokking_edition(), untitled)[0].reason == "close to papers you liked"


def test_an_empty_edition_gives_an_empty_digest() -> None:
    assert pick(EditionView([], np.zeros((0, 4), dtype=np.float32)), Taste(max_items=3)) == []


def test_latex_is_shown_as_readable_text() -> None:
    assert (
        readable("Bounds for $\\mathcal{O}(n^{2})$ and $\\alpha \\leq 1$")
        == "Bounds for O(n²) and α ≤ 1"
    )
    assert (
        readable("$\\frac{n+1}{2}$ in $\\mathbb{R}^d$, $x_{i}$, $10^{-3}$")
        == "(n+1)/2 in ℝ^d, xᵢ, 10⁻³"
    )
    assert (
        readable("5\\% of \\emph{all} runs cost \\$3, $\\sim$2 GPUs")
        == "5% of all runs cost $3, ∼2 GPUs"
    )
    assert readable("We bound $\\frac{1}{ unbalanced") == "We bound $\\frac{1}{ unbalanced"


def test_a_signal_that_added_nothing_is_never_named_the_strongest() -> None:
    flat = replace(paper(1), components={"community": 0.0, "text": -0.4})
    assert pick(edition([flat]), Taste(max_items=1))[0].reason == "#1 trending"


@pytest.mark.model
def test_exclusions_work_by_meaning_with_the_real_model(database: Database) -> None:
    from ranking.embedder import make_embedder

    embedder = make_embedder(database.settings)
    titles = ["Protein structure prediction with deep learning", "A new bound for graph colouring"]
    view = EditionView([paper(1), paper(2)], embedder.encode(titles))
    with database.sessions() as session:
        exclusion = phrase_vectors(
            session, ["biology and proteins"], embedder.model, embedder.encode
        )
        session.commit()
        # Stored once: the second lookup needs no model.
        assert phrase_vectors(session, ["biology and proteins"], embedder.model, None) is not None
    picks = select(
        view, Taste(max_items=2, exclusion_vectors=exclusion), max_per_topic=2, exclusion_cosine=0.3
    )
    assert ids(picks) == ["2"]


def test_thumbs_up_are_matched_in_the_taste_space_of_the_editions_model() -> None:
    corpus, pair = author_day()  # a real author's day: their earlier papers are the thumbs up
    papers = [
        replace(paper(n), title=corpus.papers[row].title, abstract=corpus.papers[row].abstract)
        for n, row in enumerate(pair.pool)
    ]
    texts = tuple(corpus.texts[row] for row in pair.profile)
    space = load_space()

    def chosen(view: EditionView, liked: np.ndarray) -> list[str]:
        taste = Taste(max_items=5, liked=liked, liked_texts=texts)
        return [p.paper.arxiv_id for p in pick(view, taste)]

    vectors, liked = corpus.vectors[pair.pool], corpus.vectors[pair.profile]
    in_space = chosen(EditionView(papers, vectors, space), liked)
    # The same as comparing vectors mapped beforehand, and not what the raw vectors give.
    mapped = space.apply(vectors, [corpus.texts[row] for row in pair.pool])
    assert in_space == chosen(EditionView(papers, mapped), space.apply(liked, texts))
    assert in_space != chosen(EditionView(papers, vectors), liked)
