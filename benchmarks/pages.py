"""Each kind of page of the site once: what tests/web/test_accessibility.py checks with axe
and benchmarks/lighthouse.py scores with Lighthouse.

Paths are templates: ``{paper}``, ``{topic}``, ``{author}``, ``{organization}`` (a Hugging Face
organization's slug) and ``{token}`` (a subscriber's preferences link) are filled from the
database each one serves.
"""

from __future__ import annotations

PAGES = {
    "trending-day": "/",
    "trending-week": "/?period=week",
    "trending-month": "/?period=month",
    "paper": "/papers/{paper}",
    "search": "/search?q=video+diffusion",
    "topic": "/topics/{topic}",
    "author": "/authors/{author}",
    "organization": "/organizations/{organization}",
    "topics": "/topics",
    "status": "/status",
    "accuracy": "/accuracy",
    "emerging": "/emerging",
    "week-in-review": "/week-in-review",
    "under-the-radar": "/under-the-radar",
    "subscribe": "/subscribe",
    "preferences": "/subscriptions/preferences?token={token}",
    "signin": "/signin",
    "for-you": "/for-you",
    "privacy": "/privacy",
    "not-found": "/papers/2512.99999",
    "api-docs": "/api/docs",
}
