"""What the web's use cases need of the running site: its settings, session factory and clock.

The web's context has all three, so a route hands it over as it is; a test or a command can
pass any object that has them. A use case reads the time once, from ``clock``, at its start.
"""

from __future__ import annotations

from typing import Protocol

from sqlalchemy.orm import Session, sessionmaker

from app.core.clock import Clock
from app.core.config import Settings


class Deployment(Protocol):
    @property
    def settings(self) -> Settings: ...

    @property
    def sessions(self) -> sessionmaker[Session]: ...

    @property
    def clock(self) -> Clock: ...
