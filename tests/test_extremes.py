"""The extreme values reach schemathesis whole: each dictionary it reads back holds exactly
its kind's values (NUL, control and bidirectional characters, thousands of digits included)
and each parameter named for a kind is bound to that kind's dictionary."""

from __future__ import annotations

from pathlib import Path

from schemathesis.config import SchemathesisConfig

from tests import extremes


def test_schemathesis_reads_back_every_value_of_every_kind(tmp_path: Path) -> None:
    config = SchemathesisConfig.from_path(str(extremes.write_schemathesis_config(tmp_path)))
    read = {name: tuple(e.value for e in d.entries) for name, d in config.dictionaries.items()}
    assert read == {**extremes.KINDS, "every": extremes.EVERY}
    bound = config.projects.default.parameters
    assert {name: binding.dictionary for name, binding in bound.items()} == extremes.BY_NAME
