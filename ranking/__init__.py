"""Ranking: embeddings, topics, scores and the editions built from them (see docs/ranking.md)."""
