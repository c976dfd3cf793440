"""The MCP tools that act for one reader: their For you picks, reading list and lists, saved
searches, and the actions that change them (save, file, follow, save a search).

Each call shows a personal access token the reader made on their "For you" page: over HTTP
as ``Authorization: Bearer pbt_…``, over stdio the one ``paperboy mcp`` was started with. A
token that may only read is refused by the tools that write; every token is limited to the
JSON API's rate, counted per token. The reads and actions are the pages' own
(``app.web.reader_views``, ``app.services.readers`` and ``app.services.library``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from pydantic import Field

from app.core.arxiv_ids import parse_arxiv_id
from app.core.refusals import BadInput, Limited
from app.services import claims, library, readers
from app.services.access_tokens import TokenRefusedError, token_holder
from app.services.readers import Stance
from app.services.reading import for_you_reader
from app.web import reader_views
from app.web.api_shape import search_result
from app.web.context import WebContext
from app.web.forms import MAX_ID, key_label
from app.web.mcp import shapes
from app.web.mcp.public import ArxivId, Category, reading

ListId = Annotated[int, Field(ge=1, le=MAX_ID, description="A list's id, from `reading_list`")]
HOW_TO_ACT_AS_A_READER = (
    "this tool acts for a reader: make a personal access token on your For you page "
    "(/for-you#tokens) and send it as `Authorization: Bearer <token>`, or start "
    "`paperboy mcp` with PAPERBOY_MCP_TOKEN set to it"
)


@dataclass(frozen=True)
class ReaderTools:
    """The reader's tools over one deployment; ``stdio_token``: the token a stdio server
    was started with (over HTTP each request brings its own)."""

    context: WebContext
    stdio_token: str | None = None

    def for_you(self, ctx: Context) -> shapes.ForYouAnswer:
        """The reader's own picks ("For you"): the papers their digest would bring from the
        newest edition, each with why it is picked for them and whether they saved it."""
        email_key = self._reader(ctx, write=False)
        with reading(self.context) as session:
            page = reader_views.for_you(self.context, session, email_key)
        edition = page.edition
        return shapes.ForYouAnswer(
            edition=key_label(edition.period, edition.edition_date) if edition else None,
            papers=[
                shapes.ReaderPaper(
                    paper=search_result(card, self.context.settings.public_base_url),
                    why=card.why,
                    saved=card.saved,
                )
                for card in page.cards
            ],
        )

    def reading_list(self, ctx: Context, list_id: ListId | None = None) -> shapes.ReadingListAnswer:
        """The reader's saved papers, newest first: all of them, or those filed under the
        named list `list_id`; with the reader's lists, each paper's list, read state and note."""
        email_key = self._reader(ctx, write=False)
        with reading(self.context) as session:
            found = reader_views.reading_list(session, email_key, list_id)
        return shapes.ReadingListAnswer(
            shown=found.shown_name,
            lists=[shapes.NamedList(id=one, name=name) for one, name in found.lists],
            papers=[
                shapes.ReadingListEntry(
                    paper=search_result(card, self.context.settings.public_base_url),
                    list_id=card.library.list_id if card.library else None,
                    read=card.library.read if card.library else False,
                    note=card.library.note if card.library else "",
                )
                for card in found.cards
            ],
        )

    def saved_searches(self, ctx: Context) -> shapes.SavedSearchesAnswer:
        """The searches the reader follows (each a section of their digest), with their ids."""
        email_key = self._reader(ctx, write=False)
        with reading(self.context) as session:
            found = for_you_reader(session, self.context.settings, email_key, self.context.clock())
        return shapes.SavedSearchesAnswer(
            searches=[
                shapes.SavedSearch(
                    id=one.id, label=one.label, query=one.query, category=one.category or None
                )
                for one in found.searches
            ]
        )

    def save_paper(self, ctx: Context, arxiv_id: ArxivId, saved: bool = True) -> shapes.Done:
        """Save a paper to the reader's reading list (`saved`: false takes it off). Needs a
        token that may write."""
        email_key = self._reader(ctx, write=True)
        base = parse_arxiv_id(arxiv_id).base
        readers.save_paper(self.context, email_key, base, saved=saved)
        return shapes.Done(done=f"{base} {'saved' if saved else 'taken off the reading list'}")

    def create_list(
        self, ctx: Context, name: Annotated[str, Field(min_length=1, max_length=80)]
    ) -> shapes.Done:
        """Make a named list to file saved papers under; answers its id. Needs write."""
        email_key = self._reader(ctx, write=True)
        made = library.create_list(self.context, email_key, name)
        return shapes.Done(done=f"list {made} made")

    def file_paper(
        self, ctx: Context, arxiv_id: ArxivId, list_id: ListId | None = None
    ) -> shapes.Done:
        """File a paper under one of the reader's lists (saving it if it was not); no
        `list_id`: on the reading list alone. Needs write."""
        email_key = self._reader(ctx, write=True)
        base = parse_arxiv_id(arxiv_id).base
        library.file_paper(self.context, email_key, base, list_id)
        return shapes.Done(done=f"{base} filed under list {list_id or 'reading list'}")

    def follow(
        self,
        ctx: Context,
        kind: Literal["author", "topic", "person"],
        target: Annotated[
            str,
            Field(
                min_length=1,
                max_length=200,
                description="An author's key, or a topic's or a person's id",
            ),
        ],
        follow: bool = True,
    ) -> shapes.Done:
        """Follow an author (by key), a topic or a person (by id) in the reader's digest and
        For you; `follow`: false stops following. Needs write."""
        email_key = self._reader(ctx, write=True)
        if kind == "author":
            stance = Stance.FOLLOW if follow else Stance.NEITHER
            readers.set_author_stance(self.context, email_key, target, stance)
        elif kind == "topic":
            stance = Stance.FOLLOW if follow else Stance.NEITHER
            readers.set_topic_stance(self.context, email_key, _number(target), stance)
        else:
            claims.follow_person(self.context, email_key, _number(target), follow=follow)
        return shapes.Done(done=f"{kind} {target} {'followed' if follow else 'left'}")

    def save_search(
        self,
        ctx: Context,
        query: Annotated[str, Field(min_length=1, max_length=200)],
        category: Category = None,
    ) -> shapes.Done:
        """Follow a search: what it finds each day becomes a section of the reader's digest.
        Needs write."""
        email_key = self._reader(ctx, write=True)
        readers.save_search(self.context, email_key, query, category or "")
        return shapes.Done(done=f"search {query!r} saved")

    def forget_search(
        self, ctx: Context, search_id: Annotated[int, Field(ge=1, le=MAX_ID)]
    ) -> shapes.Done:
        """Stop following a saved search (ids from `saved_searches`). Needs write."""
        email_key = self._reader(ctx, write=True)
        readers.forget_search(self.context, email_key, search_id)
        return shapes.Done(done=f"search {search_id} forgotten")

    def _reader(self, ctx: Context, *, write: bool) -> str:
        """The reader the call's token acts for, once the token's rate allows the call."""
        holder = token_holder(self.context, self._token(ctx), write=write)
        wait = self.context.limiter.retry_after(f"token:{holder.token_id}")
        if wait is not None:
            raise Limited(f"rate limit exceeded for this token; retry in {wait} s", wait)
        return holder.email_key

    def _token(self, ctx: Context) -> str:
        headers = ctx.headers
        if headers is None:
            token = self.stdio_token
        else:
            scheme, _, value = headers.get("authorization", "").partition(" ")
            token = value.strip() if scheme.lower() == "bearer" else None
        if not token:
            raise TokenRefusedError(HOW_TO_ACT_AS_A_READER)
        return token


def _number(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= MAX_ID:
        raise BadInput(f"a topic or person is named by its id, a number; got {text[:40]!r}")
    return int(text)
