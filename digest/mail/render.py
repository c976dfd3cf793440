"""Emails from templates: each email is a folder ``templates/email/<name>/`` holding
``subject.txt``, ``body.txt`` and ``body.html`` (Jinja2; only the HTML is auto-escaped)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from app.core.bundled import BundledFolder, bundled_folder
from app.core.tex import readable

TEMPLATES = bundled_folder(BundledFolder.TEMPLATES)


@dataclass(frozen=True, slots=True)
class RenderedEmail:
    subject: str
    text: str
    html: str


@cache
def environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=select_autoescape(["html"], default_for_string=False),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        # Templates ship with the code: checking their files at every render of a digest run
        # (three stat calls a mail) buys nothing.
        auto_reload=False,
    )
    env.filters["readable"] = readable
    return env


def render_email(name: str, context: dict[str, Any]) -> RenderedEmail:
    env = environment()
    subject = env.get_template(f"email/{name}/subject.txt").render(context)
    return RenderedEmail(
        # One line, always: a hostile title can never add a header through the subject.
        subject=" ".join(subject.split()),
        text=env.get_template(f"email/{name}/body.txt").render(context),
        html=env.get_template(f"email/{name}/body.html").render(context),
    )
