"""A local SMTP server (aiosmtpd) that writes every message it receives to a ``.eml`` file."""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller


@dataclass
class FileSink:
    folder: Path
    received: int = 0

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 (aiosmtpd's hook name)
        self.received += 1
        recipient = envelope.rcpt_tos[0].replace("@", "_at_")
        # Numbered after what the folder holds, so a second demo run adds, never overwrites.
        number = len(list(self.folder.glob("*.eml"))) + 1
        path = self.folder / f"{number:03d}-{recipient}.eml"
        path.write_bytes(envelope.content)
        return "250 Message accepted for delivery"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def mail_sink(folder: Path, port: int | None = None) -> Iterator[tuple[int, FileSink]]:
    """Run the sink on ``port`` (else a free one); yields the port and the sink (its count of
    messages)."""
    folder.mkdir(parents=True, exist_ok=True)
    # aiosmtpd logs each SMTP command at INFO: noise on the demo's console, one line a command.
    logging.getLogger("mail.log").setLevel(logging.WARNING)
    sink, port = FileSink(folder), port or free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield port, sink
    finally:
        controller.stop()
