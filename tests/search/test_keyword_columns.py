"""The keyword index written a chunk at a time is the vectorizer's, array for array, whatever
the chunks and the column buckets."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction.text import TfidfVectorizer

from search.index import TERM_SETTINGS
from search.keyword_columns import KeywordColumns

# Stop words, accents, case and repeats: what the vectorizer's tokens must agree on.
WORDS = ("the", "of", "Café", "cafe", "diffusion", "Diffusion", "graph", "x1", "über", "a", "rl")
text = st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join)


def written(texts: list[str], chunk: int, bucket_entries: int, path: Path) -> list[str]:
    columns = KeywordColumns(path / "scratch", bucket_entries=bucket_entries)
    for start in range(0, len(texts), chunk):
        columns.add(texts[start : start + chunk])
    return columns.write(path)


@settings(max_examples=60, deadline=None)
@given(
    texts=st.lists(text, min_size=1, max_size=25),
    chunk=st.integers(1, 9),
    bucket_entries=st.integers(1, 40),
)
def test_chunked_columns_equal_the_vectorizer_fitted_on_every_text(
    texts: list[str], chunk: int, bucket_entries: int
) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory)
        terms = written(texts, chunk, bucket_entries, path)
        vectorizer = TfidfVectorizer(**TERM_SETTINGS)
        try:
            expected = vectorizer.fit_transform(texts).tocsc()
        except ValueError:  # no word in any text
            assert terms == [] and sorted(p.name for p in path.iterdir()) == []
            return
        assert terms == list(vectorizer.get_feature_names_out())
        assert np.array_equal(np.load(path / "idf.npy"), vectorizer.idf_.astype(np.float64))
        for part in ("data", "indices", "indptr"):
            found, wanted = np.load(path / f"keywords.{part}.npy"), getattr(expected, part)
            assert found.dtype == wanted.dtype and found.tobytes() == wanted.tobytes()
        assert not (path / "scratch").exists()  # the spilled counts are removed
