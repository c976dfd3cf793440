"""A week's digest ends with the week's emerging topics and its review; a day's does not."""

from __future__ import annotations

from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

from app.cli.main import main
from app.core.clock import utc_now
from app.core.config import Settings
from app.core.models import Frequency
from tests.conftest import Database
from tests.digest.conftest import Smtp
from tests.digest.editions import add_subscriber
from tests.ranking.planted_radar import FLAGGED_WEEK, plant

LAST_DAY = FLAGGED_WEEK + timedelta(days=4)


def _part(mail: EmailMessage, kind: str) -> str:
    part = mail.get_body((kind,))
    assert part is not None
    return str(part.get_content())


def test_the_weekly_digest_ends_with_the_week_s_emerging_topics_and_review(
    database: Database, mail_settings: Settings, smtp: Smtp, tmp_path: Path
) -> None:
    plant(database, tmp_path)
    daily = ["run-daily", "--skip-ingest", "--date", LAST_DAY.isoformat(), "--quiet"]
    assert main(daily, mail_settings) == 0  # ranks, publishes the week, flags it
    weekday = utc_now().weekday()
    add_subscriber(
        database.sessions,
        "weekly@example.org",
        frequency=Frequency.WEEKLY,
        weekday=weekday,
        delivery_hour=0,
    )
    add_subscriber(database.sessions, "daily@example.org", delivery_hour=0)
    assert main(["send-digests", "--date", LAST_DAY.isoformat()], mail_settings) == 0
    [weekly] = smtp.handler.to("weekly@example.org")
    text = _part(weekly, "plain")
    section = text[text.index("== Emerging this week ==") :]
    assert "quantum origami folding" in section and "none before" in section
    card = "https://paperboy.test/emerging?week=2026-W13#emerging-1"
    assert card in section and f'href="{card}"' in _part(weekly, "html")
    review = text[text.index("== The week in review ==") :]
    assert "Representative: " in review and "https://paperboy.test/papers/26" in review
    assert "The whole review: https://paperboy.test/week-in-review?week=2026-W13" in review
    [daily_mail] = smtp.handler.to("daily@example.org")
    assert "Emerging this week" not in _part(daily_mail, "plain")
    assert "The week in review" not in _part(daily_mail, "plain")
