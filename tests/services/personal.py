"""The real corpus snippet of eval-personal: one author's history and one day's pool."""

from pathlib import Path

from app.services.personal_inputs import Corpus, Pair, corpus_of, pairs
from ranking.trending.data import load_corpus, load_embeddings

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "personal"
CORPUS_PATH = FIXTURES / "author_day.jsonl.gz"
EMBEDDINGS_PATH = FIXTURES / "author_day.f16.npy"
DAY = "2025-10-22"


def author_day() -> tuple[Corpus, Pair]:
    """The snippet as a corpus, and its one (author, day) pair."""
    corpus = corpus_of(load_corpus(CORPUS_PATH), load_embeddings(EMBEDDINGS_PATH))
    day = corpus.papers[-1].announced_on
    (pair,) = pairs(corpus, day, day)
    return corpus, pair


def authors_2026() -> tuple[Corpus, list[Pair]]:
    """The 2026 snippet (a day after the shipped taste space's training window) and its pairs."""
    corpus = corpus_of(
        load_corpus(FIXTURES / "authors_2026.jsonl.gz"),
        load_embeddings(FIXTURES / "authors_2026.f16.npy"),
    )
    day = corpus.papers[-1].announced_on
    return corpus, pairs(corpus, day, day)
