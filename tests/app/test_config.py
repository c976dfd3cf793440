from pathlib import Path

import pytest
from pydantic import ValidationError

from app.core.config import Settings, get_settings


def test_categories_are_read_comma_separated_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PAPERBOY_CATEGORIES", "cs.AI, cs.LG,,hep-th")
    assert get_settings().categories == ("cs.AI", "cs.LG", "hep-th")


def test_the_default_categories_are_the_four_ml_lists() -> None:
    assert Settings().categories == ("cs.AI", "cs.CL", "cs.CV", "cs.LG")


def test_an_empty_category_list_is_refused() -> None:
    with pytest.raises(ValidationError, match="at least one arXiv category"):
        get_settings(categories="  ,")


def test_the_default_database_is_a_sqlite_file_in_the_data_dir(tmp_path: Path) -> None:
    settings = get_settings(data_dir=tmp_path)
    assert settings.resolved_database_url == f"sqlite:///{tmp_path}/paperboy.sqlite3"


def test_an_explicit_database_url_wins() -> None:
    url = "postgresql+psycopg://paperboy@db/paperboy"
    assert get_settings(database_url=url).resolved_database_url == url


def test_production_settings_are_read_whatever_their_secret_the_entry_points_judge_it() -> None:
    # Refusing is app/core/settings_check.py's, in words at each entry point, not a traceback.
    assert get_settings(env="production").secret_key == "changethis"


def test_offline_mode_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERBOY_OFFLINE", "true")
    assert get_settings().offline is True


def test_a_setting_of_the_wrong_kind_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERBOY_SMTP_SECURITY", "ssl3")
    with pytest.raises(ValidationError, match="smtp_security"):
        get_settings()
