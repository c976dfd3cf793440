"""Every setting is documented in the README, with its environment variable name."""

import pytest

from app.core.config import Settings
from tests.conftest import PROJECT_ROOT

README = (PROJECT_ROOT / "README.md").read_text()


@pytest.mark.parametrize("field", sorted(Settings.model_fields))
def test_every_setting_is_documented_in_the_readme(field: str) -> None:
    assert f"`PAPERBOY_{field.upper()}`" in README
