"""Values at and past the ends of what a URL may name, for the hunts for server errors.

Each kind holds its ends (the first and last day, week and month Python's calendar holds),
the values just past them, and text no parser should have to meet. The walk over every route
(``tests/web/test_route_extremes.py``) sends each to the parameters of its kind, and
schemathesis draws them from dictionaries: ``python -m tests.extremes FOLDER`` writes one per
kind in libFuzzer's format and a ``schemathesis.toml`` binding them to the parameters of that
kind (``.ci/schemathesis.sh``).
"""

from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path

# One digit more than int() reads from text, whether or not this process lifted its limit.
HUGE = "9" * (max(sys.get_int_max_str_digits(), sys.int_info.default_max_str_digits) + 1)
IDENTIFIERS = (
    f"2512.14133v{HUGE}",
    f"hep-th/9901001v{HUGE}",
    f"arXiv:2512.14133v{'0' * len(HUGE)}1",
    "2512.14133v99999",
    f"2512.14133v{2**31}",
    "2512.14133v0",
    f"{HUGE}.14133",
    f"2512.{HUGE}",
)
DAYS = (
    "0001-01-01",
    "9999-12-31",
    "0000-01-01",
    "9999-12-32",
    "10000-01-01",
    "-001-01-01",
    "2025-02-29",
    "9999-W52-7",
)
WEEKS = (
    "0001-W01",
    "9999-W51",
    "9999-W52",
    "9999-W53",
    "0000-W01",
    "0001-W00",
    "2026-W53",
    "2025-W53",
    "-001-W01",
)
MONTHS = ("0001-01", "9999-12", "0000-01", "9999-13", "0000-00", "10000-01", "-001-01")
PERIODS = ("day", "week", "month", "year", "", "DAY")
INTEGERS = (
    "0",
    "-1",
    str(2**31 - 1),
    str(2**31),
    str(2**63),
    str(2**64),
    HUGE,
    f"-{HUGE}",
    "1e999",
    "NaN",
    "\u0663",  # a digit of another script: int() reads it, a database does not
    "\u00b2",  # a digit to str.isdigit(), not a number to int()
)
TEXTS = (
    "\x00",
    "a\x00b",
    "\u202eevil\u202c",
    "\u200f\u200e",
    "\ufeff",
    "\r\n",
    "\x1b[31m",
    "%00",
    "\U0010ffff",
    "x" * 5000,
)
EVERY = (*IDENTIFIERS, *DAYS, *WEEKS, *MONTHS, *PERIODS, *INTEGERS, *TEXTS)
KINDS: dict[str, tuple[str, ...]] = {
    "identifiers": IDENTIFIERS,
    "days": DAYS,
    "weeks": WEEKS,
    "months": MONTHS,
    "periods": PERIODS,
    "integers": INTEGERS,
    "texts": TEXTS,
}
# The kind of value a parameter holds, by its name where its type (a string) does not say.
BY_NAME = {
    "arxiv_id": "identifiers",
    "date": "days",
    "day": "days",
    "since": "days",
    "until": "days",
    "week": "weeks",
    "month": "months",
    "period": "periods",
    "topic": "integers",
}
# How often schemathesis takes a dictionary's value instead of its own: any string parameter
# now and then, a parameter of a named kind often.
ANY_STRING, NAMED = 0.1, 0.3


def libfuzzer_entry(value: str) -> str:
    """``value`` as one line of a libFuzzer dictionary: quoted, with quotes, backslashes and
    control characters escaped as ``\\xNN`` (schemathesis reads the file as UTF-8 and each
    escape as one character, so nothing else needs one)."""
    escaped = "".join(
        f"\\x{ord(char):02x}" if char in '"\\' or unicodedata.category(char) == "Cc" else char
        for char in value
    )
    return f'"{escaped}"'


def write_schemathesis_config(folder: Path) -> Path:
    """A dictionary per kind and one of every value, and ``schemathesis.toml`` binding them;
    returns the configuration's path."""
    lines = []
    for name, values in {**KINDS, "every": EVERY}.items():
        path = folder / f"{name}.dict"
        path.write_text("".join(libfuzzer_entry(v) + "\n" for v in values), encoding="utf-8")
        lines += [f"[dictionaries.{name}]", f"from-file = {json.dumps(str(path))}", ""]
    lines += ["[generation.dictionaries]", _binding("string", "every", ANY_STRING), ""]
    lines += ["[parameters]", *(_binding(json.dumps(p), k, NAMED) for p, k in BY_NAME.items())]
    config = folder / "schemathesis.toml"
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return config


def _binding(key: str, dictionary: str, probability: float) -> str:
    return f'{key} = {{ dictionary = "{dictionary}", probability = {probability} }}'


if __name__ == "__main__":
    write_schemathesis_config(Path(sys.argv[1]))
