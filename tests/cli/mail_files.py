"""The demo's mail as a reader finds it: the files its local sink writes, one per message."""

from __future__ import annotations

import email
import email.policy
import re
import time
from pathlib import Path

WAIT_SECONDS = 10.0  # the sink writes a mail within milliseconds; room for a loaded machine


def mailed_link(folder: Path, recipient: str, path: str) -> str:
    """The link to ``path`` in the mail to ``recipient`` once it lands in ``folder``."""
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        for mail in sorted(folder.glob(f"*-{recipient.replace('@', '_at_')}.eml")):
            message = email.message_from_bytes(mail.read_bytes(), policy=email.policy.default)
            body = message.get_body(("plain",))
            assert body is not None
            found = re.search(rf"https?://\S+{re.escape(path)}\?token=\S+", body.get_content())
            if found:
                return found.group(0)
        time.sleep(0.05)
    raise AssertionError(f"no mail with a {path} link reached {folder} in {WAIT_SECONDS} s")
