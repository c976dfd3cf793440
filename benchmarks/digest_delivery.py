"""Digest delivery: 10,000 subscribers, the real corpus's edition, a local SMTP sink.

    .venv/bin/python -m benchmarks.digest_delivery [--corpus ...jsonl.gz] [--matrix ...f16.npy]
        [--subscribers 10000]

Imports the real corpus into a scratch SQLite database with the precomputed vectors, builds
the topics and the day edition of its largest day through ``rank_day``, and stores subscribers
with varied tastes: categories, one to three interests (titles of real papers of the corpus),
exclusions for one in five, followed authors for one in ten, 5-20 items. Phrase vectors are
put in the phrase cache from the precomputed paper vectors, as a previous run would have left
them, so no model loads here (embedding a phrase is a one-off per phrase).

Then, each in its own process, against an SMTP sink in a third process that discards what it
receives:

- ``paperboy send-digests``: select, render and deliver every digest through the ledger;
  emails/s and the peak resident memory of that process;
- the peer: a bare loop sending the same number of pre-rendered messages over one reused
  aiosmtplib connection.

With ``--selection``, only the choice of each digest is timed, in this process and with no
database: ``digest.sections.sectioned_picks`` over every paper of the same day (its first 100
the edition) for that many readers who each gave 5 to 30 thumbs up (a random earlier paper and
its nearest earlier papers, as a reader with one or two subjects would), so that the profile
match (embeddings and the day's tf-idf, digest/profile_match.py) does real work. Milliseconds
per reader; the day's tf-idf is built once, by the first reader, and timed apart.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import aiosmtplib
import numpy as np
from aiosmtpd.controller import Controller
from sqlalchemy import delete, select

from app.core.config import PACKAGED_MODEL_NAME, Settings, get_settings
from app.core.db import make_session_factory, open_engine, session_scope
from app.core.models import (
    Delivery,
    Edition,
    EditionKey,
    PhraseEmbedding,
    SavedSearch,
    Subscriber,
)
from app.core.vectors import pack
from benchmarks.corpus_data import CORPUS, MATRIX, prepare_database, read_vectors, vectors_of
from digest.compose import digest_message
from digest.ledger import Reader
from digest.mail.messages import OutgoingMail
from digest.profile_match import paper_text
from digest.run_inputs import edition_view
from digest.sections import Sectioned, sectioned_picks
from digest.selection import EditionPaper, EditionView, Pick, Taste
from digest.taste_space import space_for
from ranking.pipeline import default_scorer, rank_day
from ranking.scoring import Candidate
from ranking.trending.data import load_corpus

DAY = date(2026, 6, 2)
# As PAPERBOY_EDITION_SIZE's default: the day's papers past it come in by the reader alone.
EDITION_SIZE = 100
CATEGORIES = ["cs.AI", "cs.CL", "cs.CV", "cs.LG", "cs.RO", "stat.ML"]
PROJECT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--matrix", type=Path, default=MATRIX)
    parser.add_argument("--subscribers", type=int, default=10_000)
    parser.add_argument(
        "--selection", action="store_true", help="time the selection alone, readers with thumbs up"
    )
    parser.add_argument(
        "--keep", type=Path, help="prepare the database in this folder, or reuse the one there"
    )
    parser.add_argument(
        "--saved-searches",
        type=int,
        default=0,
        help="this many subscribers (drawn at random) follow a search: the run loads search",
    )
    args = parser.parse_args()
    if args.selection:
        _time_selection(args.corpus, args.matrix, args.subscribers)
        return
    with tempfile.TemporaryDirectory() as scratch:
        data_dir = args.keep or Path(scratch)
        settings = get_settings(data_dir=data_dir, smtp_host="127.0.0.1", smtp_port=_port())
        if not (data_dir / "paperboy.sqlite3").exists():
            prepare_database(settings, args.corpus, args.matrix, [(DAY, DAY)])
            titles = _rank_and_titles(settings)
            _store_subscribers(settings, args.matrix, titles, args.subscribers)
        _reset_ledger(settings)
        _follow_searches(settings, args.saved_searches)
        _measure(settings, args.subscribers)


def _time_selection(corpus: Path, matrix: Path, readers: int) -> None:
    papers = [p for p in load_corpus(corpus) if p.announced_on <= DAY]
    rows = read_vectors(matrix)
    today = [p for p in papers if p.announced_on == DAY and p.arxiv_id in rows]
    earlier = [p for p in papers if p.announced_on < DAY and p.arxiv_id in rows][-20_000:]
    papers_today = [_edition_paper(p, n) for n, p in enumerate(today)]
    vectors = vectors_of(matrix, rows, [p.arxiv_id for p in today])
    tastes = _tastes_with_thumbs_up(matrix, rows, earlier, readers)
    # The corpus matrix is the packaged model's: a run compares in its taste space; the same
    # readers without it are the peer of the same run.
    for name, space in (("taste space", space_for(PACKAGED_MODEL_NAME)), ("raw", None)):
        # The edition is the day's first 100; the selection reads the whole day, in sections.
        view = EditionView(papers_today, vectors, space, edition_size=EDITION_SIZE)
        started = time.perf_counter()
        view.index()
        first = time.perf_counter() - started
        started = time.perf_counter()
        for taste in tastes:
            sectioned_picks(view, taste, max_per_topic=3, exclusion_cosine=0.5)
        seconds = time.perf_counter() - started
        print(
            f"[{name}] edition of {DAY}: {len(today)} papers; its index built in "
            f"{first * 1000:.0f} ms"
        )
        print(
            f"[{name}] sectioned_picks() for {readers} readers with 5-30 thumbs up: "
            f"{seconds:.1f} s = "
            f"{seconds / readers * 1000:.2f} ms per reader"
        )


def _edition_paper(paper: Candidate, rank: int) -> EditionPaper:
    return EditionPaper(
        arxiv_id=paper.arxiv_id,
        title=paper.title,
        authors=list(paper.authors),
        author_keys=[],
        categories=list(paper.categories),
        score=1.0 - rank / 1000,
        components={},
        topic_id=None,
        topic_label=None,
        abstract=paper.abstract,
    )


def _tastes_with_thumbs_up(
    matrix: Path, rows: dict[str, int], earlier: list[Candidate], readers: int
) -> list[Taste]:
    vectors = vectors_of(matrix, rows, [p.arxiv_id for p in earlier])
    texts = [paper_text(p.title, p.abstract) for p in earlier]
    rng = random.Random(7)
    tastes = []
    for _ in range(readers):
        seed = rng.randrange(len(earlier))
        liked = np.argsort(-(vectors @ vectors[seed]))[: rng.randint(5, 30)]
        tastes.append(
            Taste(
                max_items=rng.randint(5, 20),
                categories=frozenset(rng.sample(CATEGORIES, 3)),
                liked=vectors[liked],
                liked_texts=tuple(texts[i] for i in liked),
            )
        )
    return tastes


def _reset_ledger(settings: Settings) -> None:
    with open_engine(settings) as engine, session_scope(make_session_factory(engine)) as session:
        session.execute(delete(Delivery))


# What the readers who follow a search follow: subjects of the corpus's days, one a minus.
FOLLOWED_SEARCHES = (
    "diffusion models",
    "reinforcement learning -robot",
    "graph neural networks",
    "large language model agents",
    "medical image segmentation",
    "3D reconstruction",
    "speech recognition",
    "federated learning",
)


def _follow_searches(settings: Settings, readers: int) -> None:
    """Exactly ``readers`` subscribers, drawn with a fixed seed, follow one search each."""
    with open_engine(settings) as engine, session_scope(make_session_factory(engine)) as session:
        session.execute(delete(SavedSearch))
        ids = list(session.scalars(select(Subscriber.id).order_by(Subscriber.id)))
        draw = random.Random(5)
        for subscriber_id in draw.sample(ids, min(readers, len(ids))):
            query = draw.choice(FOLLOWED_SEARCHES)
            session.add(
                SavedSearch(
                    subscriber_id=subscriber_id,
                    query=query,
                    saved_at=datetime(2026, 1, 1, tzinfo=UTC),
                )
            )


def _port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _rank_and_titles(settings: Settings) -> dict[str, str]:
    """Publish the day's edition; the titles of the papers of the edition's window."""
    with open_engine(settings) as engine, session_scope(make_session_factory(engine)) as session:
        _topics, publication = rank_day(session, DAY, settings, default_scorer(settings, session))
        print(f"edition: {publication.line()}")
        from app.core.models import Paper, PaperEmbedding

        rows = session.execute(
            select(Paper.arxiv_id, Paper.title).join(
                PaperEmbedding, PaperEmbedding.arxiv_id == Paper.arxiv_id
            )
        ).all()
    # An interest is one phrase: no separators (commas, semicolons) inside it.
    return {arxiv_id: _phrase(title) for arxiv_id, title in rows}


def _phrase(title: str) -> str:
    return " ".join(title.replace(",", " ").replace(";", " ").split())[:80].strip()


def _store_subscribers(settings: Settings, matrix: Path, titles: dict[str, str], n: int) -> None:
    rng = random.Random(7)
    ids = sorted(titles)
    vectors = vectors_of(matrix, read_vectors(matrix), ids)
    with open_engine(settings) as engine, session_scope(make_session_factory(engine)) as session:
        cached: set[str] = set()
        for number in range(n):
            chosen = rng.sample(range(len(ids)), 4)
            interests = [titles[ids[i]] for i in chosen[: rng.randint(1, 3)]]
            exclusions = [titles[ids[chosen[3]]]] if number % 5 == 0 else []
            for text, row in zip(interests + exclusions, chosen, strict=False):
                _cache_phrase(session, settings, text, vectors[row], cached)
            session.add(_subscriber(number, rng, interests, exclusions))
    print(f"stored {n} subscribers, {len(cached)} distinct phrases")


def _cache_phrase(
    session: Any, settings: Settings, text: str, vector: Any, cached: set[str]
) -> None:
    import hashlib

    key = hashlib.sha256(text.encode()).hexdigest()
    if key not in cached:
        cached.add(key)
        session.add(
            PhraseEmbedding(model=settings.embedding_model, text_hash=key, vector=pack(vector))
        )


def _subscriber(
    number: int, rng: random.Random, interests: list[str], exclusions: list[str]
) -> Subscriber:
    return Subscriber(
        email=f"reader{number:05d}@example.org",
        status="active",
        categories=rng.sample(CATEGORIES, rng.randint(1, 4)),
        interests="\n".join(interests),
        exclusions="\n".join(exclusions),
        followed_topics=[],
        muted_topics=[],
        followed_authors=["yann-lecun"] if number % 10 == 0 else [],
        muted_authors=[],
        frequency="daily",
        weekday=0,
        delivery_hour=0,
        time_zone=rng.choice(["UTC", "Europe/Paris", "America/New_York", "Asia/Tokyo"]),
        max_items=rng.randint(5, 20),
        send_empty=False,
        failure_count=0,
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
    )


def _measure(settings: Settings, n: int) -> None:
    received = multiprocessing.Value("i", 0)
    sink = multiprocessing.Process(target=_run_sink, args=(settings.smtp_port, received))
    sink.start()
    time.sleep(1.0)
    try:
        ours, peak_kib = _digest_run(settings)
        sent_by_us = received.value
        peer = _bare_loop(settings, _pre_rendered(settings, n))
    finally:
        sink.terminate()
        sink.join()
    rate, peer_rate = sent_by_us / ours, n / peer
    print(
        f"send-digests: {sent_by_us} emails in {ours:.1f} s = {rate:.0f} emails/s, "
        f"peak memory of the sending process {peak_kib / 1024:.0f} MiB"
    )
    print(
        f"peer, bare aiosmtplib loop over one connection: {n} emails in {peer:.1f} s = "
        f"{peer_rate:.0f} emails/s"
    )
    print(f"ratio: {rate / peer_rate:.2f} of the bare loop's rate")


def _digest_run(settings: Settings) -> tuple[float, int]:
    env = {
        **os.environ,
        "PAPERBOY_DATABASE_URL": settings.resolved_database_url,
        "PAPERBOY_SMTP_HOST": settings.smtp_host,
        "PAPERBOY_SMTP_PORT": str(settings.smtp_port),
        "PAPERBOY_DATA_DIR": str(settings.data_dir),
    }
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "app.cli.main", "send-digests", "--date", DAY.isoformat()],
        cwd=PROJECT,
        env=env,
        check=True,
    )
    seconds = time.perf_counter() - started
    # ru_maxrss of children is in KiB on Linux; the sender is the only child waited for so far.
    return seconds, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss


def _pre_rendered(settings: Settings, n: int) -> list[OutgoingMail]:
    """``n`` digests as the run renders them (one real digest, addressed to each reader)."""
    now = datetime.now(UTC)
    with open_engine(settings) as engine, session_scope(make_session_factory(engine)) as session:
        edition = session.scalars(select(Edition).where(Edition.period == "day")).first()
        assert edition is not None
        view = edition_view(session, edition, settings.embedding_model)
        subscriber = session.scalars(select(Subscriber)).first()
        assert subscriber is not None
        picks = Sectioned([Pick(paper, "#1 trending") for paper in view.papers[:12]])
        template = digest_message(
            settings, Reader.of(subscriber), EditionKey("day", DAY), picks, now
        )
    to = f"To: {template.recipient}".encode()
    return [
        OutgoingMail(
            sender=template.sender,
            recipient=f"reader{number:05d}@example.org",
            message_id=template.message_id,
            raw=template.raw.replace(to, f"To: reader{number:05d}@example.org".encode(), 1),
        )
        for number in range(n)
    ]


def _bare_loop(settings: Settings, messages: list[OutgoingMail]) -> float:
    async def send_all() -> None:
        async with aiosmtplib.SMTP(
            hostname=settings.smtp_host, port=settings.smtp_port, start_tls=False
        ) as smtp:
            for message in messages:
                await smtp.sendmail(message.sender, [message.recipient], message.raw)

    started = time.perf_counter()
    asyncio.run(send_all())
    return time.perf_counter() - started


class _Discard:
    def __init__(self, received: Any) -> None:
        self.received = received

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        with self.received.get_lock():
            self.received.value += 1
        return "250 OK"


def _run_sink(port: int, received: Any) -> None:
    controller = Controller(_Discard(received), hostname="127.0.0.1", port=port)
    controller.start()
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
