"""The answers the subscription and sign-in pages give: a page, a message, a refused link or
form, and a page with a form (which also sets the cookie half of its CSRF pair)."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import HTMLResponse

from app.core.tokens import TokenError
from app.web.account_views import ActionPage, MessagePage
from app.web.context import WebContext
from app.web.forms import CSRF_COOKIE, Refusal, browser_nonce, csrf_field


def page(
    request: Request, context: WebContext, name: str, view: object, status: int = 200
) -> HTMLResponse:
    """``templates/subscriptions/{name}.html`` showing ``view``."""
    return context.respond(request, f"subscriptions/{name}.html", view, status)


def message(
    request: Request, context: WebContext, title: str, text: str, status: int = 200
) -> HTMLResponse:
    return page(request, context, "message", MessagePage(title, text), status)


def refused_link(request: Request, context: WebContext, error: TokenError) -> HTMLResponse:
    text = f"This link is {error.reason.replace('-', ' ')}. Nothing was changed."
    if error.reason == "expired":
        text += " Ask for a new one by subscribing again or from your latest digest."
    return message(request, context, "This link does not work", text, status=400)


def refused_form(request: Request, context: WebContext, why: Refusal) -> HTMLResponse:
    if why is Refusal.CROSS_SITE:
        text = "This form was sent from another site. Nothing was changed."
        return message(request, context, "Refused", text, status=403)
    status = 400 if why is Refusal.BAD_CSRF else 403
    return message(request, context, "Form expired", "Please reload the form.", status)


def unknown_choice(request: Request, context: WebContext) -> HTMLResponse:
    return message(request, context, "This link does not work", "Unknown choice.", 400)


def form_page(
    request: Request, context: WebContext, name: str, view: object, nonce: str
) -> HTMLResponse:
    """A page whose form carries ``csrf_field(nonce)``, and the cookie half of the pair."""
    return with_csrf_cookie(context, page(request, context, name, view), nonce)


def with_csrf_cookie(context: WebContext, response: HTMLResponse, nonce: str) -> HTMLResponse:
    """``response`` setting the cookie half of the CSRF pair whose field is for ``nonce``."""
    secure = context.secure_cookies
    response.set_cookie(CSRF_COOKIE, nonce, httponly=True, samesite="strict", secure=secure)
    return response


def action_page(
    request: Request,
    context: WebContext,
    *,
    title: str,
    text: str,
    button: str,
    action: str,
    token: str,
    fields: dict[str, str] | None = None,
) -> HTMLResponse:
    """The page a mailed link opens: what the link offers, and one button that does it."""
    nonce = browser_nonce(request)
    view = ActionPage(
        title=title,
        text=text,
        button=button,
        action=action,
        token=token,
        csrf=csrf_field(context.settings, nonce),
        fields=fields or {},
    )
    return form_page(request, context, "action", view, nonce)
