"""Which email addresses Paperboy stores and writes to, decided when they are typed (pure).

The rule (also in ``docs/email.md``):

- Surrounding spaces are dropped; any other space or control character (tab, newline, NUL,
  zero-width and direction marks) is refused.
- The part before ``@`` is plain ASCII (RFC 5322 ``dot-atom``: letters, digits and
  ``!#$%&'*+/=?^_`{|}~-``, dots between them), at most 64 characters. Paperboy does not send
  with SMTPUTF8, so an internationalised local part could not be delivered: it is refused.
- The domain may be internationalised: it is stored in its ASCII form (IDNA 2008 with UTS 46
  mapping, as registries use: ``faß.de`` is ``xn--fa-hia.de``, not ``fass.de``), lower-cased,
  with at least two labels of letters, digits and inner hyphens.
- At most 254 characters in all, as typed and once the domain is in its ASCII form.

One mailbox is one key: :attr:`Address.key` lower-cases the whole address, so ``Bob@``,
``BOB@`` and ``bob@`` are one subscriber and share one rate limit, while mail goes to the
address as it was typed (:attr:`Address.delivery`). Counting people goes further
(:func:`mailbox`): ``ada+1@`` and ``ada@`` are one mailbox, whatever the keys say.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

import idna

from app.core.models.subscriptions import mailbox_key
from app.core.refusals import BadInput

MAX_ADDRESS_LENGTH = 254
MAX_LOCAL_LENGTH = 64
_LOCAL = re.compile(r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*")
_LABEL = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)")
_TOP_LABEL = re.compile(r"[a-z]{2,63}|xn--[a-z0-9-]{1,59}")
EXAMPLE = "like ada@example.org"
# Addresses that reach one Gmail mailbox: dots in the local part are ignored, and
# googlemail.com is gmail.com.
_GMAIL = "gmail.com"
_GMAIL_ALIASES = frozenset({"gmail.com", "googlemail.com"})
# Yahoo's disposable addresses are ``base-keyword@yahoo.com``: one base name an account
# chooses, any number of keywords. Two people merged by this count as one, which errs toward
# counting less.
_YAHOO = "yahoo"


class BadAddressError(BadInput, ValueError):
    """An email address Paperboy will not store or write to; the message says why."""


@dataclass(frozen=True, slots=True)
class Address:
    """A checked address: ``delivery`` to send to, ``key`` for uniqueness and rate limits."""

    delivery: str

    @property
    def key(self) -> str:
        return mailbox_key(self.delivery)


def parse_address(raw: str) -> Address:
    """The checked address, or :class:`BadAddressError` saying what is wrong."""
    address = raw.strip(" ")
    if any(_is_control_or_space(character) for character in address):
        raise BadAddressError("an email address cannot contain spaces or control characters")
    if len(address) > MAX_ADDRESS_LENGTH:
        raise BadAddressError(f"an email address has at most {MAX_ADDRESS_LENGTH} characters")
    local, at, domain = address.rpartition("@")
    if not at or not local or not domain:
        raise BadAddressError(f"please give a valid email address, {EXAMPLE}")
    _check_local(local)
    delivery = f"{local}@{_ascii_domain(domain)}"
    if len(delivery) > MAX_ADDRESS_LENGTH:
        raise BadAddressError(f"an email address has at most {MAX_ADDRESS_LENGTH} characters")
    return Address(delivery)


def mailbox(address: str) -> str:
    """The mailbox an address reaches, as counting people folds it: ``+tag`` dropped, Gmail's
    dots, and Yahoo's disposable ``-keyword`` (vote weights and corrections' quorum)."""
    local, _, domain = address.lower().rpartition("@")
    local = local.split("+", 1)[0]
    if domain in _GMAIL_ALIASES:
        local, domain = local.replace(".", ""), _GMAIL
    elif domain.split(".", 1)[0] == _YAHOO:
        local = local.split("-", 1)[0]
    return f"{local}@{domain}"


def _is_control_or_space(character: str) -> bool:
    return unicodedata.category(character)[0] in "CZ"


def _check_local(local: str) -> None:
    if not local.isascii():
        raise BadAddressError(
            "Paperboy can only deliver to addresses whose part before @ is plain ASCII "
            "(Latin letters, digits and . _ + -)"
        )
    if len(local) > MAX_LOCAL_LENGTH or not _LOCAL.fullmatch(local):
        raise BadAddressError(f"the part before @ is not a valid mailbox name, {EXAMPLE}")


def _ascii_domain(domain: str) -> str:
    try:
        ascii_domain = idna.encode(domain, uts46=True).decode("ascii").lower()
    except (idna.IDNAError, UnicodeError) as error:
        raise BadAddressError(f"the part after @ is not a valid domain, {EXAMPLE}") from error
    *labels, top = ascii_domain.split(".")
    if not labels or not all(_LABEL.fullmatch(label) for label in labels):
        raise BadAddressError(f"the part after @ is not a valid domain, {EXAMPLE}")
    if not _TOP_LABEL.fullmatch(top):
        raise BadAddressError(f"the part after @ is not a valid domain, {EXAMPLE}")
    return ascii_domain
