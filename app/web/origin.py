"""Whether a state-changing request comes from one of Paperboy's own pages.

SameSite=Strict cookies already keep another site's forms from acting as a signed-in reader;
this is the second lock. Browsers say where a request comes from: ``Sec-Fetch-Site`` (modern
browsers) and ``Origin`` (on every cross-origin request and every POST). A request whose
browser names another site is refused. A request that names no origin at all (a command-line
client, an old browser) is let through: it carries no cookie of a victim, and the forms'
CSRF pair or the link's token still has to match.

It also says which page of this site a request came from (:func:`own_path`), for a button
that answers by sending the reader back there.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.requests import Request

# "none": the reader typed the address or used a bookmark; never another site.
_OWN_FETCH_SITES = frozenset({"same-origin", "none"})


def from_this_site(request: Request, public_base_url: str) -> bool:
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in _OWN_FETCH_SITES:
        return False
    origin = request.headers.get("origin")
    if origin is None:
        return True
    own = {_origin(public_base_url), _origin(str(request.base_url))}
    return origin.rstrip("/").lower() in own


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def own_path(referer: str, netloc: str) -> str | None:
    """The path and query of ``referer`` when it is a page of this site (``netloc``), else None.

    Only a path no browser reads as another site: never ``//host`` (a scheme-relative URL),
    nor a backslash (browsers read ``/\\host`` as ``//host``), nor a control character
    (browsers drop tabs and newlines from a URL, which can bring two slashes together).
    """
    try:
        parts = urlsplit(referer)
    except ValueError:  # an unbalanced bracket where an IPv6 host would be
        return None
    back = parts.path + (f"?{parts.query}" if parts.query else "")
    if parts.netloc != netloc or not back.startswith("/") or back.startswith("//"):
        return None
    return back if back.isprintable() and "\\" not in back else None
