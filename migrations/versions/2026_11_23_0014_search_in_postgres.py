"""Search in PostgreSQL: a word index for every paper and, with pgvector, halfvec embeddings.

On PostgreSQL only (a no-op on SQLite, whose search stays in the process):

- ``paper_search``: each paper's tsvector (title A, abstract B, author names C) with a GIN
  index, kept current by statement-level triggers on ``papers`` and ``paper_authors`` and
  deleted with the paper; filled here for the papers already stored.
- Where the ``vector`` extension is available: the extension, ``paper_embeddings.embedding``
  (``halfvec`` of any dimension) filled from the stored float32 vectors, and an HNSW cosine
  index over the 384-dimension ones (the default model's; other dimensions get theirs when
  the embed step first stores one).

What it makes is defined in ``app.core.search_store`` (``paperboy migrate`` calls the same
``install`` again, so installing pgvector later and migrating again adds the vectors).

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-23 21:00:00
"""

from __future__ import annotations

from alembic import op

from app.core.search_store import install, uninstall

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    install(op.get_bind())


def downgrade() -> None:
    uninstall(op.get_bind())
