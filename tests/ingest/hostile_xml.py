"""Hostile XML documents, written for the tests (no real server sends them)."""

EXTERNAL_ENTITY = b"""<?xml version="1.0"?>
<!DOCTYPE feed [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<feed xmlns="http://www.w3.org/2005/Atom"><title>&secret;</title></feed>"""

# "Billion laughs": ten levels of ten-fold expansion, a gigabyte if expanded.
ENTITY_BOMB = (
    b'<?xml version="1.0"?>\n<!DOCTYPE lolz [\n<!ENTITY lol0 "lol">\n'
    + b"".join(
        b'<!ENTITY lol%d "%s">\n' % (level, (b"&lol%d;" % (level - 1)) * 10)
        for level in range(1, 10)
    )
    + b"]>\n<feed>&lol9;</feed>"
)
