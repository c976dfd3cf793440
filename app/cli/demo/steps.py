"""``paperboy demo``: the whole daily job, end to end, on the embedded default.

It migrates the database (SQLite in ``DATA_DIR``), imports the bundled sample of real arXiv
papers, their precomputed vectors and their real Hugging Face Daily Papers signals (upvotes,
comments, code and project links, submitters, organizations), exercises live ingest against a
local server answering with the sample's own latest day (the replayed day is embedded
with the real model), ranks and publishes every announcement day stored, subscribes and
confirms a demo reader, has a few demo readers discuss a paper and publish a reading list
with notes, mails the digest to a local mail sink that writes
``DATA_DIR/mail/*.eml``, then serves the site (``--no-serve`` stops before that), the sink
running beside it until the site stops. Every link it mails or feeds leads to ``--host`` and
``--port``. It reaches no network and sends no real mail.

Run again, it runs every step again on what the last run stored: the imports keep what is
stored (the replayed day's papers take the sample's own record back, the feed's lacking
comments), every day is ranked again and its edition republished as a new version only where
the ranking changed (else reported unchanged), and the reader, already confirmed, is neither
subscribed nor mailed again: the sink reports no message.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from urllib.parse import urlsplit

from app.cli.common import command_sessions, print_report
from app.cli.demo.replay import (
    Route,
    demo_clock,
    replay_server,
    replayed_ingest,
    sample_routes,
)
from app.cli.demo.site import mail_sink, served_at
from app.cli.ranking import import_embeddings, print_daily
from app.core.clock import Clock, utc_now
from app.core.config import Settings
from app.core.db import make_session_factory, open_engine
from app.core.schema import migrate as migrate_schema
from app.services import editions
from app.services.daily import run_range
from app.services.demo import (
    DemoSite,
    discussed_papers,
    first_listed_day,
    publish_reading_list,
    start_discussion,
    stored_days,
    subscribe_and_confirm,
)
from app.services.digests import send_due_digests
from app.services.ingest import import_hf_signals
from app.services.store import import_papers

SAMPLE_DIR = Path(__file__).resolve().parents[2] / "sample"
SAMPLE = SAMPLE_DIR / "arxiv_listings_sample.jsonl.gz"
SAMPLE_VECTORS = SAMPLE_DIR / "sample_embeddings.f16.npy"
SAMPLE_IDS = SAMPLE_DIR / "sample_embeddings.ids.json"
SAMPLE_SIGNALS = SAMPLE_DIR / "hf_daily_sample.jsonl"
# The sample's archive: the replayed feed lists its papers (app.cli.demo.replay).
REPLAY_CATEGORIES = ("cs",)
DEMO_READER = "reader@demo.paperboy.localhost"


@dataclass
class Demo:
    settings: Settings
    replay: Settings
    # The demo's now: the sample's latest day (app.cli.demo.replay).
    clock: Clock = utc_now
    day: date | None = None
    sent: int = 0


Step = Callable[[Demo], int]


def add_demo_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-serve", action="store_true", help="stop before serving the site")
    parser.add_argument("--host", default="127.0.0.1", help="address to serve on")
    parser.add_argument(
        "--port", type=int, default=8000, help="port to serve on (the links mailed follow it)"
    )


def run_demo(args: argparse.Namespace, settings: Settings) -> int:
    # Every link mailed or fed, from the first step on, leads to where the site will serve.
    settings = served_at(settings, args.host, args.port)
    mail_dir = settings.data_dir / "mail"
    routes: dict[Route, tuple[bytes, str]] = {}
    with replay_server(routes) as source_url, mail_sink(mail_dir) as (smtp_port, sink):
        replayed_day, answers = sample_routes(REPLAY_CATEGORIES, source_url)
        routes.update(answers)
        local = settings.model_copy(update={"smtp_host": "127.0.0.1", "smtp_port": smtp_port})
        clock = demo_clock(replayed_day, local.data_dir)
        demo = Demo(local, _replay_settings(local, source_url), clock)
        status = run_steps(demo)
        written = list(sink.written)
    print_where_to_look(args, settings, demo, mail_dir, written)
    if status != 1 and not args.no_serve:
        serve(settings, args.host, args.port)
    return status


def _replay_settings(settings: Settings, url: str) -> Settings:
    return settings.model_copy(
        update={
            "arxiv_rss_url": url,
            "arxiv_api_url": f"{url}/api/query",
            "hf_api_url": f"{url}/api",
            # The politeness intervals are for arXiv's and Hugging Face's servers; this one is
            # ours, and so are the thumbnails it draws.
            "arxiv_min_interval_seconds": 0.0,
            "hf_thumbnail_interval_seconds": 0.0,
            "hf_thumbnail_hosts": (urlsplit(url).hostname or "",),
            "contact_email": settings.contact_email or "demo@paperboy.localhost",
        }
    )


def run_steps(demo: Demo) -> int:
    """Each step in order; a step that fails (1) stops the demo, a partial one (2) does not."""
    worst = 0
    for title, step in STEPS:
        print(f"\n== {title}")
        status = step(demo)
        if status == 1:
            print(f"demo: {title} failed; stopping")
            return 1
        worst = max(worst, status)
    return worst


def migrate(demo: Demo) -> int:
    with open_engine(demo.settings) as engine:
        done = migrate_schema(engine)
        print(f"{done.describe()}: {engine.url.render_as_string(hide_password=True)}")
    return 0


def import_sample(demo: Demo) -> int:
    with open_engine(demo.settings) as engine:
        summary = import_papers(make_session_factory(engine), SAMPLE)
    print(f"imported {summary.line()}")
    return summary.exit_code


def import_vectors(demo: Demo) -> int:
    settings = demo.settings
    return import_embeddings(settings, SAMPLE_VECTORS, SAMPLE_IDS, settings.embedding_model)


def import_signals(demo: Demo) -> int:
    with command_sessions(demo.settings) as sessions:
        return print_report(import_hf_signals(sessions, [SAMPLE_SIGNALS]))


def live_ingest(demo: Demo) -> int:
    print("replaying the sample's latest day (arXiv RSS, Hugging Face) from a local server")
    with command_sessions(demo.replay, "worker") as sessions:
        now = demo.clock()
        return print_report(replayed_ingest(demo.replay, sessions, now, REPLAY_CATEGORIES))


def embed_replayed_day(demo: Demo) -> int:
    with command_sessions(demo.settings) as sessions:
        replayed = first_listed_day(sessions, REPLAY_CATEGORIES)
    if replayed is None:
        print("nothing replayed to embed")
        return 1
    with command_sessions(demo.settings) as sessions:
        return print_report(editions.embed(demo.settings, sessions, replayed))


def rank_and_publish(demo: Demo) -> int:
    """Every announcement day stored, oldest first, so each day of the sample has its
    edition and the week and month editions are built from all of their days."""
    with command_sessions(demo.settings) as sessions:
        first, demo.day = stored_days(sessions)
    if first is None or demo.day is None:
        return 1
    with command_sessions(demo.settings, "worker") as sessions:
        report = run_range(demo.settings, sessions, first, demo.day)
    return print_daily(report)


def subscribe_reader(demo: Demo) -> int:
    # At the demo's clock, as its site runs: links mailed at the real clock would be issued in
    # the site's future, and it would refuse every one of them.
    settings, now = demo.settings, demo.clock()
    with open_engine(settings) as engine:
        subscribed = subscribe_and_confirm(settings, make_session_factory(engine), DEMO_READER, now)
    if not subscribed:
        print(f"{DEMO_READER} is already subscribed and confirmed")
        return 0
    print(f"{DEMO_READER} subscribed (confirmation mailed) and confirmed")
    return 0


def talk_about_papers(demo: Demo) -> int:
    """Demo readers discuss the newest edition's first paper and publish a reading list."""
    with command_sessions(demo.settings) as sessions:
        papers = discussed_papers(sessions, 3)
        if not papers:
            print("no edition to discuss")
            return 1
        site = DemoSite(demo.settings, sessions, demo.clock)
        posted = start_discussion(site, papers[0])
        slug = publish_reading_list(site, papers)
    print(f"{posted} comments under /papers/{papers[0]}; a public reading list at /lists/{slug}")
    return 0


def send_digest(demo: Demo) -> int:
    with command_sessions(demo.settings, "worker") as sessions:
        return print_report(send_due_digests(demo.settings, sessions, demo.clock(), demo.day))


STEPS: tuple[tuple[str, Step], ...] = (
    ("migrate", migrate),
    ("import the bundled sample of real arXiv papers", import_sample),
    ("import their precomputed embeddings", import_vectors),
    ("import their Hugging Face Daily Papers signals", import_signals),
    ("live ingest, replayed", live_ingest),
    ("embed the replayed day with the real model", embed_replayed_day),
    ("rank and publish every announcement day stored", rank_and_publish),
    ("subscribe and confirm a demo reader", subscribe_reader),
    ("demo readers discuss a paper and publish a list", talk_about_papers),
    ("send the digest to the local mail sink", send_digest),
)


def print_where_to_look(
    args: argparse.Namespace, settings: Settings, demo: Demo, mail_dir: Path, written: list[Path]
) -> None:
    site = settings.public_base_url
    print("\n== where to look")
    print(mail_line(mail_dir, written))
    for path in written:
        print(f"  {path.name}")
    if demo.day is not None:
        print(f"edition: {site}/?date={demo.day.isoformat()}")
    print(f"status: {site}/status   readiness: {site}/readyz   API: {site}/api/docs")
    if args.no_serve:
        print("serve it: paperboy demo, or uvicorn app.cli.demo.site:create_demo_app --factory")
        print(f"  with PAPERBOY_PUBLIC_BASE_URL={site} for its links")


def mail_line(mail_dir: Path, written: list[Path]) -> str:
    """What the sink received this run: one message a file, the files listed below it."""
    if not written:
        earlier = len(list(mail_dir.glob("*.eml")))
        return f"mail sink: no message this run ({earlier} earlier in {mail_dir.resolve()}/)"
    messages = "1 message" if len(written) == 1 else f"{len(written)} messages"
    return f"mail sink: {messages} this run, each a file in {mail_dir.resolve()}/:"


def serve(settings: Settings, host: str, port: int) -> None:
    import uvicorn

    from app.cli.demo.site import demo_app, mail_drop

    settings = served_at(settings, host, port)
    drop = mail_drop(settings)
    app = demo_app(settings, drop)
    print(f"\nserving on {settings.public_base_url} (Ctrl-C stops)")
    print(f"{drop.describe()} (sign-in, subscription and digest mail)")
    # No log config of uvicorn's own: its lines go to the app's handler (JSON with LOG_JSON).
    # uvicorn stops the app on Ctrl-C and SIGTERM, and the mail sink with it.
    uvicorn.run(app, host=host, port=port, log_level="warning", log_config=None)
