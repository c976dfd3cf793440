"""arXiv identifiers: parse every form arXiv uses and split the version off.

New style (since April 2007): ``YYMM.NNNN`` (to 2014) or ``YYMM.NNNNN`` (from 2015), e.g.
``2503.11731v2``. Old style: ``archive[.SUBJ]/YYMMNNN``, e.g. ``hep-th/9901001v1`` or
``math.AG/0601001``. The subject class of an old-style id is not part of the identifier
(arXiv redirects ``math.AG/0601001`` to ``math/0601001``), so it is dropped here: both spellings
must name the same stored paper.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.core.refusals import BadInput

# A version is a revision count: four digits are far more than any paper has had. A longer
# one is not an identifier, and never reaches int(), which refuses text past Python's
# integer-digit limit (a server error for a URL an attacker writes).
MAX_VERSION_DIGITS = 4
_VERSION = rf"(?:v(?P<version>\d{{1,{MAX_VERSION_DIGITS}}}))?"
# re.ASCII: \d would also match other scripts' digits ("٢٥٠٣"), which no identifier has.
_NEW_STYLE = re.compile(r"(?P<yymm>\d{4})\.(?P<number>\d{4,5})" + _VERSION, re.ASCII)
_OLD_STYLE = re.compile(
    r"(?P<archive>[a-z]+(?:-[a-z]+)?)(?:\.[A-Za-z]+(?:-[A-Za-z]+)?)?/(?P<number>\d{7})" + _VERSION,
    re.ASCII,
)
# The form of every identifier since 2015, bare: most of what a bulk import reads.
_MODERN = re.compile(r"(?P<yymm>\d\d(?:0[1-9]|1[0-2]))\.(?P<number>\d{5})" + _VERSION, re.ASCII)
# Prefixes seen in the wild: "arXiv:2503.11731", "https://arxiv.org/abs/2503.11731v2",
# "http://arxiv.org/pdf/hep-th/9901001v1", "oai:arXiv.org:2503.11731".
_PREFIX = re.compile(
    r"^(?:arxiv:|oai:arxiv\.org:|https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/)",
    re.IGNORECASE,
)


class InvalidArxivIdError(BadInput, ValueError):
    """Raised for a string that is not an arXiv identifier."""


@dataclass(frozen=True, slots=True)
class ArxivId:
    """An arXiv identifier without its version, plus the version if one was given."""

    base: str
    version: int | None = None

    def __str__(self) -> str:
        return self.base if self.version is None else f"{self.base}v{self.version}"

    @property
    def is_old_style(self) -> bool:
        return "/" in self.base


def parse_arxiv_id(text: str) -> ArxivId:
    """Parse an identifier in any common spelling; raise :class:`InvalidArxivIdError` otherwise."""
    if (match := _MODERN.fullmatch(text)) and match["yymm"] >= "1501":
        return ArxivId(f"{match['yymm']}.{match['number']}", _version(match["version"], text))
    candidate = _PREFIX.sub("", text.strip())
    candidate = candidate.removesuffix(".pdf")
    if match := _NEW_STYLE.fullmatch(candidate):
        _check_month(match["yymm"][2:], text)
        _check_number_width(match["yymm"], match["number"], text)
        return ArxivId(f"{match['yymm']}.{match['number']}", _version(match["version"], text))
    if match := _OLD_STYLE.fullmatch(candidate):
        _check_month(match["number"][2:4], text)
        return ArxivId(f"{match['archive']}/{match['number']}", _version(match["version"], text))
    raise InvalidArxivIdError(f"not an arXiv identifier: {_shown(text)}")


def is_arxiv_id(text: str) -> bool:
    try:
        parse_arxiv_id(text)
    except InvalidArxivIdError:
        return False
    return True


def _check_month(month: str, original: str) -> None:
    if not 1 <= int(month) <= 12:
        raise InvalidArxivIdError(f"not an arXiv identifier (month {month}): {_shown(original)}")


def _check_number_width(yymm: str, number: str, original: str) -> None:
    # Four-digit sequence numbers ran to 1412; five digits from 1501 on.
    expected = 4 if yymm < "1501" else 5
    if len(number) != expected:
        raise InvalidArxivIdError(
            f"not an arXiv identifier (sequence number width): {_shown(original)}"
        )


def _version(raw: str | None, original: str) -> int | None:
    if raw is None:
        return None
    version = int(raw)
    if version < 1:
        raise InvalidArxivIdError(f"not an arXiv identifier (version {raw}): {_shown(original)}")
    return version


def _shown(text: str) -> str:
    """``text`` as an error quotes it: its start only, as callers echo errors to whoever sent
    the text."""
    return repr(text[:60]) + ("…" if len(text) > 60 else "")
