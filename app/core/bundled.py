"""Where the files that ship with the code are: templates, static files and migrations.

In the repository they sit at the top (``templates/``, ``static/``, ``migrations/``); a wheel
carries them inside this package (``app/templates``, ...; ``setup.py`` puts them there), as an
editable checkout has no copy there. One lookup serves both.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1]


class BundledFolder(StrEnum):
    TEMPLATES = "templates"
    STATIC = "static"
    MIGRATIONS = "migrations"


def bundled_folder(folder: BundledFolder) -> Path:
    """The installed package's copy of ``folder``, else the checkout's."""
    installed = PACKAGE_DIR / folder
    return installed if installed.is_dir() else PACKAGE_DIR.parent / folder
