"""Author names stored with TeX accents are decoded: ``P\\'erez`` becomes "Pérez".

Ingest decodes names from now on (``app.core.tex``); this fixes those stored before,
with a copy of the same functions as they were at this revision, so old and new rows agree and
replaying this migration gives the same result whatever the application's code becomes:

- ``paper_authors``: each name written in TeX is decoded, and its ``author_key`` is the key of
  the decoded name (``daniel-p-erez-herrera`` becomes ``daniel-perez-herrera``). A link keeps
  its paper and position, its primary key, so no paper gains or loses an author.
- ``authors``: a key no link uses any more is deleted, a new one inserted; two spellings that
  now share a key are one author. A name still in TeX is decoded.
- ``subscribers``: followed and muted author keys follow their author to the new key.

The downgrade changes nothing: the TeX spellings are not kept, and the decoded names are what
every source now stores.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-23 19:00:00
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | None = None
depends_on: str | None = None

_authors = sa.table("authors", sa.column("key", sa.String), sa.column("name", sa.Text))
_links = sa.table(
    "paper_authors",
    sa.column("arxiv_id", sa.String),
    sa.column("position", sa.Integer),
    sa.column("author_key", sa.String),
    sa.column("name", sa.Text),
)
_subscribers = sa.table(
    "subscribers",
    sa.column("id", sa.Integer),
    sa.column("followed_authors", sa.JSON),
    sa.column("muted_authors", sa.JSON),
)


def upgrade() -> None:
    renamed = _renamed_authors()
    _fix_links(renamed)
    _fix_authors(renamed)
    if renamed:
        _fix_subscribers({old: new for old, (new, _name) in renamed.items()})


def downgrade() -> None:
    pass  # nothing to undo: see the module's docstring


def _holds_tex(column: sa.ColumnElement[str]) -> sa.ColumnElement[bool]:
    # "!" escapes: PostgreSQL's LIKE takes a backslash as its escape, SQLite's takes none.
    return sa.or_(column.like("%\\%", escape="!"), column.like("%{%", escape="!"))


def _renamed_authors() -> dict[str, tuple[str, str]]:
    """The stored keys whose author's name, or a link's, is in TeX and whose key changes, each
    with its new key and decoded name."""
    bind = op.get_bind()
    authors = sa.select(_authors.c.key, _authors.c.name).where(_holds_tex(_authors.c.name))
    links = sa.select(_links.c.author_key, _links.c.name).where(_holds_tex(_links.c.name))
    decoded = {
        key: decode_tex_accents(name)
        for key, name in [*bind.execute(authors), *bind.execute(links)]
    }
    renamed = {old: (author_key(name), name) for old, name in decoded.items()}
    return {old: (new, name) for old, (new, name) in renamed.items() if new and new != old}


def _fix_links(renamed: dict[str, tuple[str, str]]) -> None:
    """Decode each link's name and key it again: those written in TeX and those of a renamed
    author (a plain spelling whose author row carried a TeX name)."""
    bind = op.get_bind()
    rows = [*bind.execute(_link_query(_holds_tex(_links.c.name)))]
    for keys in _batches(sorted(renamed)):
        rows += bind.execute(_link_query(_links.c.author_key.in_(keys)))
    fixed = {
        (arxiv_id, position): {"id": arxiv_id, "at": position, "new_name": name}
        for arxiv_id, position, name in ((a, p, decode_tex_accents(raw)) for a, p, raw in rows)
    }
    for row in fixed.values():
        row["new_key"] = author_key(row["new_name"])
    # A name that decodes to no letter or digit has no key: its link stays as it was.
    keyed = [row for row in fixed.values() if row["new_key"]]
    names = dict(renamed.values())
    _insert_missing_authors(names | {row["new_key"]: row["new_name"] for row in keyed})
    if keyed:
        bind.execute(
            _links.update()
            .where(_links.c.arxiv_id == sa.bindparam("id"), _links.c.position == sa.bindparam("at"))
            .values(name=sa.bindparam("new_name"), author_key=sa.bindparam("new_key")),
            keyed,
        )


def _link_query(which: sa.ColumnElement[bool]) -> sa.Select[tuple[str, int, str]]:
    return sa.select(_links.c.arxiv_id, _links.c.position, _links.c.name).where(which)


def _insert_missing_authors(names_by_key: dict[str, str]) -> None:
    bind = op.get_bind()
    stored: set[str] = set()
    for keys in _batches(sorted(names_by_key)):
        stored.update(bind.scalars(sa.select(_authors.c.key).where(_authors.c.key.in_(keys))))
    missing = [
        {"key": key, "name": name} for key, name in names_by_key.items() if key not in stored
    ]
    if missing:
        bind.execute(_authors.insert(), missing)


def _fix_authors(renamed: dict[str, tuple[str, str]]) -> None:
    """Delete the old keys no link uses now; decode the names still in TeX."""
    bind = op.get_bind()
    used = sa.select(_links.c.author_key).where(_links.c.author_key == _authors.c.key).exists()
    for keys in _batches(sorted(renamed)):
        bind.execute(_authors.delete().where(_authors.c.key.in_(keys), ~used))
    rows = bind.execute(
        sa.select(_authors.c.key, _authors.c.name).where(_holds_tex(_authors.c.name))
    )
    decoded = [{"old_key": key, "new_name": decode_tex_accents(name)} for key, name in rows]
    if decoded:
        bind.execute(
            _authors.update()
            .where(_authors.c.key == sa.bindparam("old_key"))
            .values(name=sa.bindparam("new_name")),
            decoded,
        )


def _fix_subscribers(renamed: dict[str, str]) -> None:
    bind = op.get_bind()
    rows = bind.execute(
        sa.select(_subscribers.c.id, _subscribers.c.followed_authors, _subscribers.c.muted_authors)
    )
    for row_id, followed, muted in rows.all():
        new_followed, new_muted = _renamed_keys(followed, renamed), _renamed_keys(muted, renamed)
        if (new_followed, new_muted) != (followed, muted):
            bind.execute(
                _subscribers.update()
                .where(_subscribers.c.id == row_id)
                .values(followed_authors=new_followed, muted_authors=new_muted)
            )


def _renamed_keys(keys: list[str] | None, renamed: dict[str, str]) -> list[str] | None:
    if not keys:
        return keys
    return list(dict.fromkeys(renamed.get(key, key) for key in keys))


def _batches(keys: list[str], size: int = 500) -> Iterator[list[str]]:
    # Bounded IN lists: SQLite caps the parameters of one statement.
    return (keys[start : start + size] for start in range(0, len(keys), size))


# Frozen copies of ``app.core.tex.decode_tex_accents`` and ``app.core.names.author_key``
# as they were when this migration was written: a migration must not change what it did when the
# application's code changes. Do not edit them to follow the application.

_MARKS = {
    "'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303", "=": "\u0304",
    ".": "\u0307", "c": "\u0327", "v": "\u030c", "u": "\u0306", "H": "\u030b", "k": "\u0328",
    "r": "\u030a", "d": "\u0323", "b": "\u0331",
}  # fmt: skip
_LETTERS = {
    "o": "ø", "O": "Ø", "ss": "ß", "aa": "å", "AA": "Å", "l": "ł", "L": "Ł", "ae": "æ",
    "AE": "Æ", "oe": "œ", "OE": "Œ", "i": "\u0131", "j": "\u0237",
}  # fmt: skip
_DOTLESS = {"i": "i", "j": "j"}
_LETTER = r"[^\W\d_]"
_COMMAND_END = r"(?:\{\}| (?=[a-z]))?"


def _base(tag: str) -> str:
    return rf"(?:(?P<{tag}letter>{_LETTER})|\\+(?P<{tag}dotless>[ij])(?![A-Za-z]){_COMMAND_END})"


_ACCENT = re.compile(
    r"\\+(?:(?P<symbol>['`^\"~=.])|(?P<command>[cvuHkrdb])(?![A-Za-z])\s*)"
    rf"(?:\{{\s*{_base('braced_')}\s*\}}|{_base('bare_')})"
)
_LETTER_COMMAND = re.compile(
    r"\\+(?P<name>"
    + "|".join(sorted(_LETTERS, key=len, reverse=True))
    + r")(?![A-Za-z])"
    + _COMMAND_END
)
_PLAIN_GROUP = re.compile(r"(\\[A-Za-z]+)?\{([^{}\\]*)\}")


def decode_tex_accents(text: str) -> str:
    if "\\" not in text and "{" not in text:
        return text
    decoded = _LETTER_COMMAND.sub(_letter, _ACCENT.sub(_accented, text))
    while True:  # innermost groups first: "{{\\o}}" is "ø"
        ungrouped = _PLAIN_GROUP.sub(_ungrouped, decoded)
        if ungrouped == decoded:
            return unicodedata.normalize("NFC", decoded)
        decoded = ungrouped


def _accented(match: re.Match[str]) -> str:
    mark = _MARKS[match["symbol"] or match["command"]]
    letter = match["braced_letter"] or match["bare_letter"]
    if letter is None:
        letter = _DOTLESS[match["braced_dotless"] or match["bare_dotless"]]
    return unicodedata.normalize("NFC", letter + mark)


def _ungrouped(match: re.Match[str]) -> str:
    return match[0] if match[1] else match[2]


def _letter(match: re.Match[str]) -> str:
    return _LETTERS[match["name"]]


_MAX_KEY_LENGTH = 200
_UNDECOMPOSABLE = str.maketrans(
    {"ø": "o", "Ø": "o", "ł": "l", "Ł": "l", "đ": "d", "Đ": "d", "ð": "d", "þ": "th",
     "æ": "ae", "Æ": "ae", "œ": "oe", "Œ": "oe", "\u0131": "i"}  # dotless i
)  # fmt: skip
_NOT_ALNUM = re.compile(r"[\W_]+")
_ASCII_WORDS = str.maketrans(
    {chr(code): chr(code).lower() if chr(code).isalnum() else " " for code in range(128)}
)


def author_key(name: str) -> str:
    if "\\" in name:
        name = decode_tex_accents(name)
    if name.isascii():
        return "-".join(name.translate(_ASCII_WORDS).split())[:_MAX_KEY_LENGTH].rstrip("-")
    decomposed = unicodedata.normalize("NFKD", name.translate(_UNDECOMPOSABLE))
    folded = "".join(char for char in decomposed if not unicodedata.combining(char))
    return _NOT_ALNUM.sub("-", folded.casefold()).strip("-")[:_MAX_KEY_LENGTH].rstrip("-")
