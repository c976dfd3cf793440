"""Following a link from a mail as a reader does: open the page, press its one button."""

from __future__ import annotations

import html
import re
from typing import Protocol

from fastapi.testclient import TestClient

_FORM = re.compile(r'<form method="post" action="([^"]+)">(.*?)</form>', re.DOTALL)
_FIELD = re.compile(r'name="([^"]+)" value="([^"]*)"')


class Page(Protocol):
    """What the tests read of an answer (the test client's response type varies by release)."""

    @property
    def status_code(self) -> int: ...

    @property
    def text(self) -> str: ...


def press(client: TestClient, url: str) -> Page:
    """Open ``url``; if it shows a page with a form, press its button (a POST with its fields)."""
    page = client.get(url)
    form = _FORM.search(page.text)
    if page.status_code != 200 or form is None:
        return page
    fields = {name: html.unescape(value) for name, value in _FIELD.findall(form[2])}
    return client.post(html.unescape(form[1]), data=fields)
