"""The exact text a paper is embedded from, and its hash (pure).

The rule is fixed: ``title + ". " + abstract``, each with runs of whitespace collapsed to one
space and trimmed. The precomputed corpus matrix uses the same rule, so hashes agree.
"""

from __future__ import annotations

import hashlib


def collapse_whitespace(text: str) -> str:
    return " ".join(text.split())


def embedding_text(title: str, abstract: str) -> str:
    return f"{collapse_whitespace(title)}. {collapse_whitespace(abstract)}"


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
