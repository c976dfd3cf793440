"""Static files under content-hashed URLs, kept a year by browsers and proxies.

A page names each stylesheet, script and icon as ``/static/NAME?v=HASH``, the first digits of
the file's SHA-256. The URL changes whenever the file does, so its answer may be kept a year
and marked immutable: a returning reader's browser asks for none of them again. A request
with another ``v`` or none (a page cached before a release, a hand-typed URL, the KaTeX files
``static/math.js`` loads) gets the file with a short life instead, so a stale copy never
outlives a release by long.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs

from fastapi.staticfiles import StaticFiles
from starlette.responses import Response
from starlette.types import Scope

HASH_DIGITS = 12
A_YEAR = "public, max-age=31536000, immutable"
SHORT = "public, max-age=3600"


class UnknownAssetError(KeyError):
    """A template named a static file that is not there (a typo, or a file not shipped)."""


@dataclass(frozen=True, slots=True)
class Assets:
    """The static folder and each file's content hash, by its path inside the folder."""

    directory: Path
    hashes: dict[str, str]

    @classmethod
    def of(cls, directory: Path) -> Assets:
        """Every file under ``directory``, hashed once (at start: the files ship with the app)."""
        return cls(
            directory=directory,
            hashes={
                path.relative_to(directory).as_posix(): content_hash(path.read_bytes())
                for path in sorted(directory.rglob("*"))
                if path.is_file()
            },
        )

    def url(self, name: str) -> str:
        """The URL a page uses for ``name``: it changes whenever the file does."""
        if name not in self.hashes:
            raise UnknownAssetError(f"no static file {name!r} in {self.directory}")
        return f"/static/{name}?v={self.hashes[name]}"

    def cache_control(self, name: str, query_string: str) -> str:
        """A year for the URL naming the file's current content, an hour for any other."""
        asked = parse_qs(query_string).get("v", [])
        current = self.hashes.get(name)
        return A_YEAR if current is not None and asked == [current] else SHORT


def content_hash(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()[:HASH_DIGITS]


class HashedStaticFiles(StaticFiles):
    """Starlette's static files, with the Cache-Control :class:`Assets` gives each request."""

    def __init__(self, assets: Assets) -> None:
        super().__init__(directory=assets.directory)
        self.assets = assets

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        if response.status_code in (200, 304):
            query = scope.get("query_string", b"").decode("latin-1")
            response.headers["Cache-Control"] = self.assets.cache_control(path, query)
        return response
