"""What safety costs in live ingest: parsing real arXiv responses, and the politeness gate.

Each figure is printed next to a peer measured in the same run:

* OAI-PMH page (150 records): ``ingest.oai.parse_page`` (defusedxml, then records) against a
  bare, unguarded ``xml.etree.ElementTree.fromstring`` of the same bytes;
* arXiv API page (100 entries): Paperboy's path (the defusedxml check, the ``arxiv`` package's
  own parser, then records) against the package's parser alone;
* RSS feed: ``ingest.rss.parse_listing`` (defusedxml check, feedparser) against feedparser alone;
* the gate: one claim and release on SQLite (interval 0) against an empty write transaction.

Usage: ``python benchmarks/ingest_parsing.py [--data ../shared/data]``.
"""

from __future__ import annotations

import argparse
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from pathlib import Path

import feedparser
from arxiv import _feed
from sqlalchemy import text

from app.core.config import get_settings
from app.core.db import make_engine
from app.core.schema import upgrade_to_head
from ingest.arxiv_api import result_to_record
from ingest.http import Gate
from ingest.oai import parse_page
from ingest.rss import parse_listing
from ingest.safe_xml import parse_xml

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
OAI_PAGE = "arxiv_oai/invenio_oaiharvester/sample_arxiv_response_listrecords_physics.xml"
API_PAGE = "arxiv_api/bodies/q_testing_s0_m100_cfe7536492ca.xml"
RSS_FEED = "arxiv_rss/feeds/2023-10-26_daily/rss__cs+math.xml"


def per_call(function: Callable[[], object], seconds: float = 1.0) -> float:
    """Mean seconds per call, over as many calls as fit in ``seconds`` (after one warm-up)."""
    function()
    calls, started = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - started) < seconds:
        function()
        calls += 1
    return elapsed / calls


def row(label: str, ours: float, peer: float, unit: str) -> None:
    print(f"| {label} | {ours * 1e3:.3f} | {peer * 1e3:.3f} | {ours / peer:.2f} | {unit} |")


def api_path(body: bytes) -> object:
    parse_xml(body, "API")
    return [result_to_record(result) for result in _feed.parse(body).results]


def gate_figures() -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as folder:
        engine = make_engine(get_settings(data_dir=Path(folder)))
        upgrade_to_head(engine)
        gate = Gate(engine, interval=0.0, lease=60.0)

        def claim_and_release() -> None:
            with gate.slot():
                pass

        def empty_transaction() -> None:
            with engine.begin() as connection:
                connection.execute(text("UPDATE request_gates SET holder = NULL WHERE 0 = 1"))

        figures = per_call(claim_and_release), per_call(empty_transaction)
        engine.dispose()
        return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="../shared/data")
    data = parser.parse_args().data
    oai, api, rss = ((data / name).read_bytes() for name in (OAI_PAGE, API_PAGE, RSS_FEED))
    print("| what | ours, ms | peer, ms | ours / peer | unit |")
    print("|---|---:|---:|---:|---|")
    oai_figures = per_call(lambda: parse_page(oai)), per_call(lambda: ElementTree.fromstring(oai))
    row("OAI-PMH page, 150 records (peer: bare ElementTree parse)", *oai_figures, "page")
    api_figures = per_call(lambda: api_path(api)), per_call(lambda: _feed.parse(api))
    row("API page, 100 entries (peer: arxiv package parser)", *api_figures, "page")
    rss_figures = per_call(lambda: parse_listing(rss)), per_call(lambda: feedparser.parse(rss))
    row("RSS feed, 4 items (peer: feedparser alone)", *rss_figures, "feed")
    row("gate claim + release, SQLite (peer: empty write transaction)", *gate_figures(), "request")


if __name__ == "__main__":
    main()
