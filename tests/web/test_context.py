"""The web context's memo outlives the request that filled it."""

from sqlalchemy import Engine

from app.core.config import Settings
from app.core.db import make_session_factory, open_engine
from app.web.context import build_context


def test_an_edition_kept_by_the_memo_survives_the_rollback_of_the_request_that_loaded_it(
    site_settings: Settings,
) -> None:
    with open_engine(site_settings) as engine:
        _check_memo_survives_rollback(site_settings, engine)


def _check_memo_survives_rollback(site_settings: Settings, engine: Engine) -> None:
    context = build_context(site_settings, make_session_factory(engine))
    failing = context.sessions()
    loaded = context.edition(failing, "day", None)
    assert loaded is not None
    failing.rollback()  # the request failed after reading the edition
    failing.close()
    later = context.sessions()
    kept = context.edition(later, "day", None)
    assert kept is loaded  # from the memo, no query
    assert kept.published_at is not None and kept.pool_size > 0  # still readable
    later.close()
