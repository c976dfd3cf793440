"""Parse XML from the network without trusting it.

Every arXiv response goes through :func:`parse_xml` before any other parser sees it:
``defusedxml`` refuses a document that declares entities (external entities, or an
entity-expansion bomb) without expanding them. A bare DOCTYPE is allowed, so that an HTML
error page is reported as what it is rather than as an attack.
"""

from __future__ import annotations

from xml.etree.ElementTree import Element, ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring

from ingest.errors import FeedFormatError, UnsafeXmlError

_SHOWN_BYTES = 80


def parse_xml(body: bytes, what: str) -> Element:
    """The root element of ``body``; :class:`FeedFormatError` says why it is unusable."""
    if not body.strip():
        raise FeedFormatError(f"{what}: empty response")
    try:
        return fromstring(body, forbid_dtd=False, forbid_entities=True, forbid_external=True)
    except DefusedXmlException as error:
        raise UnsafeXmlError(f"{what}: refused unsafe XML ({type(error).__name__})") from error
    except (ParseError, LookupError) as error:  # LookupError: an encoding Python does not know
        raise FeedFormatError(f"{what}: not well-formed XML ({error}); {_start(body)}") from error


def local_name(element: Element) -> str:
    """The tag without its namespace: ``{http://www.w3.org/2005/Atom}feed`` -> ``feed``."""
    return element.tag.rsplit("}", 1)[-1]


def _start(body: bytes) -> str:
    return f"response starts {body[:_SHOWN_BYTES]!r}"
