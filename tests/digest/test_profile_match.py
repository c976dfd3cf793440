"""Profile match: how close each paper of a pool is to a reader's profile, on real papers."""

import numpy as np

from app.core.vectors import normalise
from digest.profile_match import PoolIndex
from tests.services.personal import author_day


def test_an_authors_new_paper_ranks_near_the_top_of_their_day() -> None:
    corpus, pair = author_day()
    index = PoolIndex([corpus.texts[row] for row in pair.pool], corpus.vectors[pair.pool])
    profile = [corpus.texts[row] for row in pair.profile]
    scores = index.match(profile, corpus.vectors[pair.profile])
    (own,) = [position for position, row in enumerate(pair.pool) if row in pair.relevant]
    rank = int((scores > scores[own]).sum()) + 1
    assert len(scores) == 21
    assert rank <= 5


def test_a_rare_word_shared_with_the_profile_lifts_a_paper_the_embedding_cannot_tell() -> None:
    same = normalise(np.ones((3, 4)))
    pool = ["Grokking in small transformers", "Diffusion for images", "Graph networks at scale"]
    scores = PoolIndex(pool, same).match(["Why grokking happens late"], same[:1])
    assert int(np.argmax(scores)) == 0
    assert scores[1] == scores[2] < scores[0]


def test_without_text_papers_match_by_embedding_alone() -> None:
    vectors = normalise(np.eye(3, 4) + 0.1)
    scores = PoolIndex(["", "", ""], vectors).match([""], vectors[2:3])
    assert int(np.argmax(scores)) == 2


def test_an_empty_profile_scores_every_paper_zero() -> None:
    vectors = normalise(np.eye(2, 4) + 0.1)
    empty = np.zeros((0, 4), dtype=np.float32)
    assert PoolIndex(["A paper", "Another one"], vectors).match([], empty).tolist() == [0.0, 0.0]


def test_a_second_reader_with_the_same_liked_papers_gets_the_same_scores() -> None:
    corpus, pair = author_day()
    index = PoolIndex([corpus.texts[row] for row in pair.pool], corpus.vectors[pair.pool])
    profile = [corpus.texts[row] for row in pair.profile]
    first = index.match(profile, corpus.vectors[pair.profile])
    again = index.match(profile[::-1], corpus.vectors[pair.profile[::-1]])
    assert np.allclose(first, again)
