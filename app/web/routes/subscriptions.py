"""Subscription pages: subscribe (CSRF-protected, rate-limited, double opt-in), confirm,
preferences, one-click unsubscribe (RFC 8058), feedback from digest links, export and delete,
the privacy page.

Each handler is the edge: its step (:mod:`app.services.accounts`) opens its own session scope
and commits, queuing its mail in the outbox in that same unit of work; the mail is tried after
the answer has gone (so the answer's timing does not tell a new address from a known one), and
the answer links its status page (``/mail/{ticket}``). Refused links (malformed, tampered,
expired, used, of a deleted subscription: ``TokenError``) and refused forms
(``FormRefusedError``) are answered once, by the app's handlers, with a page that says so.
Opening a mailed link never changes anything: it shows a page whose one button POSTs with the
CSRF pair (RFC 8058's one-click unsubscribe POST excepted). Every form POST is also refused
when the browser says it comes from another site.
"""

from __future__ import annotations

import json

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, Response
from starlette.background import BackgroundTask

from app.core.models import Subscriber
from app.core.tokens import TokenError
from app.services import accounts, form_choices, mail_outbox
from app.services.accounts import PreferencesAction
from app.services.subscriptions import (
    BadAddressError,
    BadPreferencesError,
    Named,
    RateLimitedError,
    parse_address,
    parse_preferences,
    preferences_reader,
    unsubscribe_url,
    unsubscribing_reader,
)
from app.web import account_views, answers
from app.web.account_views import (
    CheckInboxPage,
    FeedbackPage,
    PrivacyPage,
    SubscribePage,
    UnsubscribePage,
    preferences_page,
)
from app.web.context import ContextDep, WebContext
from app.web.forms import (
    PostedForm,
    browser_nonce,
    checked_form,
    client_host,
    csrf_field,
    read_form,
    require_this_site,
)
from app.web.routes.voting import SESSION_COOKIE

router = APIRouter(include_in_schema=False)
FEEDBACK_VALUES = {"1": "more", "-1": "fewer"}


@router.get("/subscribe")
async def subscribe_form(request: Request, context: ContextDep) -> HTMLResponse:
    settings = context.settings
    entered = account_views.blank(settings.categories, settings.digest_max_items)
    return await _subscribe_page(request, context, entered, guess_time_zone=True)


@router.post("/subscribe")
async def subscribe(request: Request, context: ContextDep) -> HTMLResponse:
    form = await checked_form(request, context.settings)
    named = await run_in_threadpool(form_choices.look_up, context, Named(form.lists))
    errors: dict[str, str] = {}
    try:
        address = parse_address(form.get("email"))
    except BadAddressError as error:
        errors["email"] = str(error)
    try:
        preferences = parse_preferences(form.fields, _ticked_or_all(form, context), named)
    except BadPreferencesError as error:
        errors.update(error.errors)
    if errors:
        entered = account_views.posted(form.fields, form.categories, form.lists)
        return await _subscribe_page(request, context, entered, errors, form.get("email"))
    # Signed in as this very address, the request may change what is stored for it.
    holder = await run_in_threadpool(
        accounts.voter, context, request.cookies.get(SESSION_COOKIE, "")
    )
    try:
        ticket = await run_in_threadpool(
            accounts.request_subscription,
            context,
            address,
            preferences,
            client_host(request),
            holder,
        )
    except RateLimitedError:
        text = "Too many requests just now; please try again in an hour."
        return answers.message(request, context, "Slow down", text, 429)
    # The same answer for a new, pending or active address: no address enumeration.
    view = CheckInboxPage(address.delivery, ticket)
    response = answers.page(request, context, "check_inbox", view)
    response.background = BackgroundTask(mail_outbox.send_now, context, ticket)
    return response


def _ticked_or_all(form: PostedForm, context: WebContext) -> list[str]:
    """The ticked categories; none ticked and none typed means all the site follows."""
    if form.categories or form.get("other_categories").strip():
        return form.categories
    return list(context.settings.categories)


async def _subscribe_page(
    request: Request,
    context: WebContext,
    entered: account_views.Entered,
    errors: dict[str, str] | None = None,
    email: str = "",
    *,
    guess_time_zone: bool = False,
) -> HTMLResponse:
    """The subscribe form showing ``entered``; with ``errors``, answered 422."""
    settings, nonce = context.settings, browser_nonce(request)
    suggestions = await run_in_threadpool(form_choices.form_suggestions, context)
    fields = account_views.form_fields(
        settings.categories, entered, suggestions, errors, guess_time_zone=guess_time_zone
    )
    view = SubscribePage(csrf_field(settings, nonce), fields, email)
    response = answers.form_page(request, context, "subscribe", view, nonce)
    response.status_code = 422 if errors else 200
    return response


@router.get("/subscribe/confirm")
async def confirm_page(request: Request, context: ContextDep, token: str = "") -> Response:
    await run_in_threadpool(accounts.check_confirmation, context, token)
    return answers.action_page(
        request,
        context,
        title="Confirm your subscription",
        text="One more step: confirm that you want Paperboy's digest.",
        button="Confirm my subscription",
        action="/subscribe/confirm",
        token=token,
    )


@router.post("/subscribe/confirm")
async def confirm(request: Request, context: ContextDep) -> HTMLResponse:
    form = await checked_form(request, context.settings)
    await run_in_threadpool(accounts.confirm, context, form.get("token"))
    text = "Your subscription is confirmed. Your first digest comes with the next edition."
    return answers.message(request, context, "Subscribed", text)


@router.get("/subscriptions/preferences")
async def preferences(request: Request, context: ContextDep, token: str = "") -> HTMLResponse:
    subscriber = await run_in_threadpool(preferences_reader, context, token)
    names = await run_in_threadpool(form_choices.stored_names, context, subscriber)
    entered = account_views.stored(
        context.settings.categories, subscriber, names.topic_labels, names.author_names
    )
    return await _preferences_page(request, context, subscriber, token, entered)


@router.post("/subscriptions/preferences")
async def save_preferences(request: Request, context: ContextDep) -> HTMLResponse:
    require_this_site(request, context.settings)
    sent = await read_form(request)
    token, action = sent.get("token"), _action(sent.get("action"))
    subscriber = await run_in_threadpool(preferences_reader, context, token)
    form = await _kept_where_left_out(context, sent, subscriber)
    named = await run_in_threadpool(form_choices.look_up, context, Named(form.lists), subscriber)
    try:
        chosen = parse_preferences(form.fields, form.categories, named)
    except BadPreferencesError as error:
        entered = account_views.posted(form.fields, form.categories, form.lists)
        return await _preferences_page(request, context, subscriber, token, entered, error.errors)
    # Where search loads the query model, it embeds the interests now: For you reads them at
    # once. A site without semantic search leaves them to the next digest run, as before.
    encode = context.search.embed if context.settings.search_semantic else None
    await run_in_threadpool(accounts.save_preferences, context, token, chosen, action, encode)
    return answers.message(request, context, "Saved", "Your preferences are saved.")


async def _kept_where_left_out(
    context: WebContext, form: PostedForm, subscriber: Subscriber
) -> PostedForm:
    """The POST with each field it left out taken from the stored preferences: a form that
    omits a field never clears what the reader chose (an empty field still clears it)."""
    names = await run_in_threadpool(form_choices.stored_names, context, subscriber)
    kept = account_views.stored(
        context.settings.categories, subscriber, names.topic_labels, names.author_names
    )
    return PostedForm(*account_views.with_stored(form.fields, form.lists, kept))


async def _preferences_page(
    request: Request,
    context: WebContext,
    subscriber: Subscriber,
    token: str,
    entered: account_views.Entered,
    errors: dict[str, str] | None = None,
) -> HTMLResponse:
    """The preferences form showing ``entered``; with ``errors``, answered 422."""
    unsubscribe_link = unsubscribe_url(context.settings, subscriber, context.clock())
    suggestions = await run_in_threadpool(form_choices.form_suggestions, context)
    fields = account_views.form_fields(context.settings.categories, entered, suggestions, errors)
    view = preferences_page(subscriber, fields, token, unsubscribe_link)
    return answers.page(request, context, "preferences", view, 422 if errors else 200)


def _action(button: str) -> PreferencesAction:
    """The button pressed; anything else (or none) saves."""
    try:
        return PreferencesAction(button)
    except ValueError:
        return PreferencesAction.SAVE


@router.get("/subscriptions/feedback")
async def feedback_page(request: Request, context: ContextDep, token: str = "") -> Response:
    """The paper the link names and both choices, each a button (opening changes nothing).

    Links mailed before one link per paper also carry ``value``; the page offers both anyway.
    """
    try:
        target = await run_in_threadpool(accounts.feedback_paper, context, token)
    except TokenError as error:
        if error.reason != "expired":
            raise
        days = context.settings.digest_link_days
        text = (
            f"Feedback links work for {days} days and this one is older, so nothing was "
            "changed. The links in your latest digest work."
        )
        return answers.message(request, context, "This link has expired", text, 400)
    nonce = browser_nonce(request)
    view = FeedbackPage(
        token=token,
        csrf=csrf_field(context.settings, nonce),
        arxiv_id=target.arxiv_id,
        title=target.title,
    )
    return answers.form_page(request, context, "feedback", view, nonce)


@router.post("/subscriptions/feedback")
async def feedback(request: Request, context: ContextDep) -> HTMLResponse:
    form = await checked_form(request, context.settings)
    value = form.get("value")
    more = FEEDBACK_VALUES.get(value)
    if more is None:
        return answers.unknown_choice(request, context)
    await run_in_threadpool(accounts.record_feedback, context, form.get("token"), int(value))
    return answers.message(
        request, context, "Thanks", f"Your next digests will have {more} like it."
    )


@router.get("/subscriptions/export")
async def export(request: Request, context: ContextDep, token: str = "") -> Response:
    data = await run_in_threadpool(accounts.export, context, token)
    # A subscriber's own data: no shared cache (a CDN) may keep it, as for signed-in pages.
    headers = {
        "Content-Disposition": 'attachment; filename="paperboy-data.json"',
        "Cache-Control": "private, no-store",
    }
    return Response(json.dumps(data, indent=2), media_type="application/json", headers=headers)


@router.post("/subscriptions/delete")
async def delete(request: Request, context: ContextDep) -> HTMLResponse:
    require_this_site(request, context.settings)
    form = await read_form(request)
    await run_in_threadpool(accounts.delete_everything, context, form.get("token"))
    text = "Everything Paperboy held about you is deleted."
    return answers.message(request, context, "Deleted", text)


@router.get("/unsubscribe")
async def unsubscribe_page(request: Request, context: ContextDep, token: str = "") -> Response:
    await run_in_threadpool(unsubscribing_reader, context, token)
    nonce = browser_nonce(request)
    view = UnsubscribePage(csrf_field(context.settings, nonce), token)
    return answers.form_page(request, context, "unsubscribe", view, nonce)


@router.post("/unsubscribe")
async def unsubscribe(request: Request, context: ContextDep, token: str = "") -> HTMLResponse:
    """RFC 8058 one-click: a POST to the link unsubscribes, with no confirmation page.

    No CSRF pair or origin check here: the mail provider posts it, and the link's own
    token (bound to this subscription) is what authorises it.
    """
    if not token:
        token = (await read_form(request)).get("token")
    await run_in_threadpool(accounts.unsubscribe, context, token)
    text = "You will get no more digests. You can subscribe again at any time."
    return answers.message(request, context, "Unsubscribed", text)


@router.get("/privacy")
async def privacy(request: Request, context: ContextDep) -> HTMLResponse:
    return answers.page(request, context, "privacy", PrivacyPage())
