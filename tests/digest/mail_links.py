"""Following a link from a mail as a reader does: open the page, press one of its buttons."""

from __future__ import annotations

import html
import re
from typing import Protocol

from fastapi.testclient import TestClient

_FORM = re.compile(r'<form method="post" action="([^"]+)">(.*?)</form>', re.DOTALL)
_FIELD = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)"')
_BUTTON = re.compile(
    r'<button type="submit"(?: name="([^"]+)" value="([^"]*)")?[^>]*>(.*?)</button>', re.DOTALL
)


class Page(Protocol):
    """What the tests read of an answer (the test client's response type varies by release)."""

    @property
    def status_code(self) -> int: ...

    @property
    def text(self) -> str: ...


def press(client: TestClient, url: str, button: str = "") -> Page:
    """Open ``url``; if it shows a page with a form, press a button (a POST with its fields):
    the first, or the first whose label holds ``button``, as a browser sends it (its own name
    and value with the form's fields)."""
    page = client.get(url)
    form = _FORM.search(page.text)
    if page.status_code != 200 or form is None:
        return page
    fields = {name: html.unescape(value) for name, value in _FIELD.findall(form[2])}
    pressed = [found for found in _BUTTON.findall(form[2]) if button in found[2]]
    assert pressed, f"no button labelled {button!r}"
    name, value, _label = pressed[0]
    if name:
        fields[name] = html.unescape(value)
    return client.post(html.unescape(form[1]), data=fields)
