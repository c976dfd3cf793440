"""In a checkout, the bundled folders are the repository's own top-level folders
(tests/test_wheel.py shows the installed wheel's copies are found the same way)."""

from __future__ import annotations

import pytest

from app.core.bundled import BundledFolder, bundled_folder
from tests.conftest import PROJECT_ROOT


@pytest.mark.parametrize("folder", list(BundledFolder))
def test_a_checkout_reads_each_bundled_folder_at_the_top_of_the_repository(
    folder: BundledFolder,
) -> None:
    assert bundled_folder(folder) == PROJECT_ROOT / folder.value
