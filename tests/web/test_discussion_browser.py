"""A paper's discussion in a real browser (Debian's chromium, Playwright): a reader posts,
replies, edits and reports on a phone with JavaScript (each press in place, said in the
thread's status line, the page never reloaded, maths rendered) and on a desktop without it
(each press a form answered by the thread, which says what was done); a moderator hides and
restores the reported comment from /moderation. The thread and a published list pass axe at
both sizes (with JavaScript, which axe runs in), under the strict CSP (no console error).
Hostile comments, drawn by Hypothesis and sanitized, run no script once chromium parses them
under that CSP.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from itertools import count
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import delete

from accounts import reader, signin
from accounts.subscriptions import delete_everything
from app.core.clock import utc_now
from app.core.comment_text import cleaned, rendered
from app.core.config import Settings
from app.core.db import make_session_factory, open_engine, session_scope
from app.core.models import ModerationDecision, Moderator, SignInKey
from app.services import discussion
from app.services.demo import READERS, DemoSite, publish_reading_list
from app.web.middleware.security import CSP
from app.web.routes.discussion import SAID
from app.web.routes.voting import SESSION_COOKIE
from tests.app.test_comment_text import HOSTILE_PARTS
from tests.web.conftest import CHROMIUM, LAST_DAY
from tests.web.helpers import edition_ids
from tests.web.test_accessibility import axe
from tests.web.test_reader_browser import SAMPLE

sync_api: Any = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium is missing")
__all__ = ["axe"]  # a fixture, used by name below
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
_numbers = count()


def _site(settings: Settings, engine: Any) -> DemoSite:
    return DemoSite(settings, make_session_factory(engine), utc_now)


class Talkers:
    """Readers of this test, signed in long ago (so no new reader's limit applies), each
    forgotten with what they wrote afterwards."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.addresses: list[str] = []

    def cookie(self, name: str) -> str:
        address = f"{name}{next(_numbers)}@example.org"
        self.addresses.append(address)
        now = datetime.now(UTC)
        with open_engine(self.settings) as engine, session_scope(make_session_factory(engine)) as s:
            cookie = signin.session_token(self.settings, s, address, now)
            s.get_one(SignInKey, address).signed_in_at = now - timedelta(days=30)
        return cookie

    def posted(self, arxiv_id: str, text: str) -> int:
        """A comment of the last reader's, posted as the site's form posts it."""
        number = next(_numbers)
        draft = discussion.Draft(arxiv_id, text, f"b{number}", name=f"Bob {number}")
        with open_engine(self.settings) as engine:
            return discussion.post_comment(
                _site(self.settings, engine), self.addresses[-1], draft
            ).id

    def forget(self) -> None:
        with open_engine(self.settings) as engine, session_scope(make_session_factory(engine)) as s:
            s.execute(delete(Moderator).where(Moderator.email_key.in_(self.addresses)))
            for address in self.addresses:
                found = reader.find(s, address)
                if found is not None:
                    delete_everything(s, found)


@pytest.fixture
def talkers(site_settings: Settings) -> Iterator[Talkers]:
    made = Talkers(site_settings)
    yield made
    made.forget()


@pytest.fixture(scope="module")
def published_list(site_settings: Settings) -> Iterator[str]:
    """The demo's reading list, published with notes; its page's path."""
    papers = edition_ids(site_settings, "day", LAST_DAY)[10:12]
    with open_engine(site_settings) as engine:
        slug = publish_reading_list(_site(site_settings, engine), papers)
    yield f"/lists/{slug}"
    with open_engine(site_settings) as engine, session_scope(make_session_factory(engine)) as s:
        found = reader.find(s, READERS["ada"][0])
        if found is not None:
            delete_everything(s, found)


class Screen:
    """One browser context at a size, signed in by ``cookie``, and its console's errors."""

    def __init__(
        self, browser: Any, base_url: str, cookie: str, *, size: dict[str, int], script: bool
    ) -> None:
        self.context = browser.new_context(viewport=size, java_script_enabled=script)
        self.context.add_cookies([{"name": SESSION_COOKIE, "value": cookie, "url": base_url}])
        self.page = self.context.new_page()
        self.page.set_default_timeout(10_000)
        self.problems: list[str] = []
        self.page.on(
            "console", lambda m: self.problems.append(m.text) if m.type == "error" else None
        )
        self.page.on("pageerror", lambda error: self.problems.append(str(error)))
        self.base_url = base_url

    def go(self, path: str) -> Any:
        self.page.goto(self.base_url + path)
        return self.page


def _said(page: Any, words: str) -> None:
    sync_api.expect(page.locator("[data-thread-said]")).to_have_text(words)


def _violations(axe: Any, page: Any) -> list[str]:
    found = axe.run(page, SAMPLE, {"resultTypes": ["violations"]}).response["violations"]
    return [f"{v['id']}: {[n['target'] for n in v['nodes']]}" for v in found]


def _talk(page: Any, others: int) -> Any:
    """Post, reply to ``others``' comment, edit the post and report ``others``; the post's
    item. Each press is checked by what the status line says (with or without the script)."""
    thread = page.locator("#discussion")
    name = f"Reader {next(_numbers)}"
    form = thread.locator("form[data-comment-form=post]")
    form.get_by_label("Display name").fill(name)
    form.locator("textarea").fill("Euler: $e^{i\\pi} + 1 = 0$")
    form.get_by_role("button", name="Post").click()
    _said(page, SAID["posted"])
    mine = thread.locator("li.comment", has_text="Euler").last
    sync_api.expect(mine).to_contain_text(name)
    replies = page.locator(f"#comment-{others} + li.replies")
    replies.locator("summary", has_text="Reply").click()
    replies.get_by_label("Your reply").fill("Good question, see the appendix.")
    replies.get_by_role("button", name="Reply").click()
    _said(page, SAID["replied"])
    sync_api.expect(page.locator(f"#comment-{others} + li.replies")).to_contain_text("appendix")
    mine = thread.locator("li.comment", has_text="Euler").last
    mine.locator("summary", has_text="Edit").click()
    mine.locator("textarea[name=body]").fill("Euler, corrected: $e^{i\\pi} = -1$")
    mine.get_by_role("button", name="Save").click()
    _said(page, SAID["edited"])
    mine = thread.locator("li.comment", has_text="corrected").last
    sync_api.expect(mine).to_contain_text("edited")
    other = page.locator(f"#comment-{others}")
    other.locator("summary", has_text="Report").click()
    other.get_by_label("Why should a moderator look at it?").fill("Off topic")
    other.get_by_role("button", name="Report").click()
    _said(page, SAID["reported"])
    return mine


@pytest.mark.browser
def test_on_a_phone_with_script_every_press_acts_in_place_and_says_so(
    base_url: str,
    browser: Any,
    axe: Any,
    site_settings: Settings,
    talkers: Talkers,
    published_list: str,
) -> None:
    paper = edition_ids(site_settings, "day", LAST_DAY)[8]
    talkers.cookie("bob")
    others = talkers.posted(paper, "What is the constant in Theorem 2?")
    screen = Screen(browser, base_url, talkers.cookie("ada"), size=PHONE, script=True)
    page = screen.go(f"/papers/{paper}")
    page.evaluate("window.stillThisPage = true")
    mine = _talk(page, others)
    sync_api.expect(mine.locator(".katex").first).to_be_attached()  # the page's KaTeX
    assert page.evaluate("window.stillThisPage") is True  # never reloaded
    sync_api.expect(page.locator("#discussion-title")).to_have_text("Discussion (3)")
    assert _violations(axe, page) == []
    page = screen.go(published_list)
    sync_api.expect(page.get_by_text("Start here: the method in section 3.")).to_be_visible()
    assert _violations(axe, page) == []
    assert screen.problems == []
    screen.context.close()


@pytest.mark.browser
def test_on_a_desktop_without_script_every_form_works_and_a_moderator_restores(
    base_url: str,
    browser: Any,
    axe: Any,
    site_settings: Settings,
    talkers: Talkers,
    published_list: str,
) -> None:
    paper = edition_ids(site_settings, "day", LAST_DAY)[9]
    talkers.cookie("bob")
    others = talkers.posted(paper, "Is the code released?")
    screen = Screen(browser, base_url, talkers.cookie("ada"), size=DESKTOP, script=False)
    page = screen.go(f"/papers/{paper}")
    _talk(page, others)
    assert "said=reported" in page.url
    moderator = talkers.cookie("mod")
    with open_engine(site_settings) as engine, session_scope(make_session_factory(engine)) as s:
        s.add(Moderator(email_key=talkers.addresses[-1], added_at=datetime.now(UTC)))
    try:
        _moderate(browser, base_url, moderator, others)
    finally:
        with open_engine(site_settings) as engine, session_scope(make_session_factory(engine)) as s:
            s.execute(delete(ModerationDecision).where(ModerationDecision.comment_id == others))
    page = screen.go(f"/papers/{paper}")
    sync_api.expect(page.locator(f"#comment-{others}")).to_contain_text("Is the code released?")
    screen.context.close()
    with_script = Screen(browser, base_url, talkers.cookie("eve"), size=DESKTOP, script=True)
    assert _violations(axe, with_script.go(f"/papers/{paper}")) == []
    assert _violations(axe, with_script.go(published_list)) == []
    assert with_script.problems == []
    with_script.context.close()


def _moderate(browser: Any, base_url: str, cookie: str, comment_id: int) -> None:
    """Hide the reported comment from the queue, then restore it from the same queue."""
    screen = Screen(browser, base_url, cookie, size=DESKTOP, script=False)
    page = screen.go("/moderation")
    for button, done in (("Hide", "Comment hidden"), ("Show", "Comment restored")):
        queued = page.locator(f"#comment-{comment_id}")
        queued.get_by_label(f"Reason for comment {comment_id}").fill("Checked by a person")
        queued.get_by_role("button", name=button, exact=True).click()
        sync_api.expect(page.locator("p.notice")).to_contain_text(done)
    screen.context.close()


# Set before the page's own parsing: a dialog called, or a script the CSP blocked, is recorded.
TRAP = """
window.__ran = []; window.__blocked = [];
for (const name of ["alert", "confirm", "prompt"]) window[name] = (...a) => window.__ran.push(name);
document.addEventListener("securitypolicyviolation",
  (e) => window.__blocked.push(`${e.violatedDirective} ${e.blockedURI}`));
"""
# What the browser built from the comments that could run script, once queued events ran.
FOUND = """async () => {
  await new Promise((done) => setTimeout(done, 0));
  const capable = [...document.querySelectorAll("body *")].flatMap((el) =>
    [...el.attributes]
      .filter((a) => a.name.startsWith("on") || /^\\s*(javascript|vbscript|data):/i.test(a.value))
      .map((a) => `${el.tagName}[${a.name}]`));
  const tags = [...document.querySelectorAll("script, iframe, object, embed, svg, style, img")];
  return {ran: window.__ran, blocked: window.__blocked,
          capable: capable.concat(tags.map((el) => el.tagName))};
}"""
HOSTILE_COMMENT = st.lists(st.one_of(HOSTILE_PARTS, st.text(max_size=20)), max_size=12).map("".join)


@settings(max_examples=5, deadline=None)
@given(st.lists(HOSTILE_COMMENT, min_size=40, max_size=40))
def test_nothing_the_sanitizer_lets_through_runs_script_in_a_browser(
    browser: Any, typed: list[str]
) -> None:
    """Forty hostile comments a page, typed, cleaned and rendered as the site stores them,
    parsed by chromium under the site's CSP: no dialog opens, the CSP has nothing to block,
    and the page built holds no handler, script URL or script-capable element."""
    body = "".join(f"<article>{rendered(cleaned(one))}</article>" for one in typed)
    headers = {"content-type": "text/html; charset=utf-8", "content-security-policy": CSP}
    context = browser.new_context()
    page = context.new_page()
    page.add_init_script(TRAP)
    page.route(
        "https://comments.test/",
        lambda route: route.fulfill(status=200, headers=headers, body=f"<!doctype html>{body}"),
    )
    page.goto("https://comments.test/")
    found = page.evaluate(FOUND)
    context.close()
    assert found == {"ran": [], "blocked": [], "capable": []}, typed
