"""A scheduler that starts before its database server: it waits, looking again with back-off
for at most ``scheduler_start_wait_seconds``, and says so once, instead of exiting into its
unit's restart limit. A refusal no wait mends (a wrong password, no such database) stops it at
once, as a server that never came up does once the wait is over."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from app.core.config import Settings
from app.core.db import make_engine
from app.core.db_faults import ConnectionFault, connection_fault
from app.core.settings_check import refuse_an_unusable_database

logger = logging.getLogger("paperboy.scheduler")
LONGEST_PAUSE = 10.0


def database_usable(
    program: str, settings: Settings, sleep: Callable[[float], None] = time.sleep
) -> bool:
    """True once the database answers; False (after printing why) if it refuses, or if no
    server answered within the wait."""
    waited, pause = 0.0, 1.0
    while waited < settings.scheduler_start_wait_seconds and not _server_answers(settings):
        if waited == 0.0:
            logger.warning(
                "%s: no database server answers yet; waiting up to %g s for it",
                program,
                settings.scheduler_start_wait_seconds,
            )
        sleep(pause)
        waited += pause
        pause = min(LONGEST_PAUSE, pause * 2)
    if waited > 0.0 and waited < settings.scheduler_start_wait_seconds:
        logger.info("%s: the database server answers after %g s", program, waited)
    return not refuse_an_unusable_database(program, settings)


def _server_answers(settings: Settings) -> bool:
    """False only while no server listens (the one fault that waiting mends)."""
    engine = make_engine(settings)
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
    except DBAPIError as error:
        return connection_fault(error) is not ConnectionFault.NO_SERVER
    finally:
        engine.dispose()
    return True
