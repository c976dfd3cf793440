"""arXiv author feeds (``/a/<orcid>.atom2``) for tests, built from real entries.

No response of the author feed is recorded: each feed here is the real ``<entry>`` elements of
recorded arXiv API answers (``tests/fixtures/arxiv_api``, the same Atom entry format), copied
byte for byte into an assumed wrapper (``tests/fixtures/PROVENANCE.md``).
"""

from __future__ import annotations

import re
from pathlib import Path

FIXTURES = Path(__file__).parent.parent / "fixtures" / "arxiv_api"
# Each recorded answer holding one paper's entry, by arXiv id.
BODIES = {
    "1605.08386": "id_1605.08386_s0_m100_199195aa31ad.xml",
    "1707.08567": "id_1707.08567_s0_m100_6a1afebfc6a3.xml",
    "2104.12255": "id_2104.12255v1_s0_m100_6ae69987ffe1.xml",
}
# A valid iD (its check digit holds): ORCID's own example.
ORCID = "0000-0002-1825-0097"
OTHER_ORCID = "0000-0001-5109-3700"
_ENTRY = re.compile(rb"<entry>.*?</entry>", re.DOTALL)


def entry(arxiv_id: str) -> bytes:
    """The recorded entry of one paper, as arXiv served it."""
    found = _ENTRY.findall((FIXTURES / BODIES[arxiv_id]).read_bytes())
    assert len(found) == 1
    return bytes(found[0])


def author_feed(orcid: str, *arxiv_ids: str) -> bytes:
    """An author feed listing the papers' recorded entries (none: an empty feed)."""
    entries = b"\n  ".join(entry(arxiv_id) for arxiv_id in arxiv_ids)
    head = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom">\n'
        f"  <title>arXiv author feed for {orcid}</title>\n"
        f"  <id>http://arxiv.org/a/{orcid}</id>\n"
        "  <updated>2026-04-12T22:10:19Z</updated>\n"
        f'  <link href="http://arxiv.org/a/{orcid}.atom2" rel="self"/>\n  '
    )
    return head.encode() + entries + b"\n</feed>\n"


def feed_path(orcid: str) -> str:
    return f"/a/{orcid}.atom2"
