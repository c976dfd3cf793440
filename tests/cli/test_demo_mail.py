"""What the demo says about its mail: the messages its sink received this run, each the file it
wrote, whatever the folder kept from earlier runs."""

from __future__ import annotations

import argparse
import smtplib
from email.message import EmailMessage
from pathlib import Path

import pytest

from app.cli.demo.site import mail_sink
from app.cli.demo.steps import Demo, print_where_to_look
from app.core.config import get_settings


def _mail(port: int, to: str) -> None:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "demo@example.org", to, "Hello"
    message.set_content("A line.")
    with smtplib.SMTP("127.0.0.1", port) as smtp:
        smtp.send_message(message)


def _where_to_look(tmp_path: Path, written: list[Path]) -> None:
    settings = get_settings(data_dir=tmp_path)
    args = argparse.Namespace(no_serve=True)
    print_where_to_look(args, settings, Demo(settings, settings), tmp_path / "mail", written)


def test_the_demo_counts_and_lists_the_messages_of_this_run_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "mail"
    folder.mkdir()
    for earlier in ("001-a_at_example.org.eml", "002-b_at_example.org.eml"):
        (folder / earlier).write_bytes(b"Subject: earlier\r\n\r\nKept from a run before.\r\n")
    with mail_sink(folder) as (port, sink):
        _mail(port, "reader@example.org")
    assert [path.name for path in sink.written] == ["003-reader_at_example.org.eml"]
    assert sink.received == 1 and sink.written[0].read_bytes().startswith(b"From:")
    _where_to_look(tmp_path, sink.written)
    lines = capsys.readouterr().out.splitlines()
    said = next(line for line in lines if line.startswith("mail sink:"))
    assert said == f"mail sink: 1 message this run, each a file in {folder.resolve()}/:"
    listed = [line.strip() for line in lines if line.startswith("  ") and ".eml" in line]
    assert listed == ["003-reader_at_example.org.eml"]


def test_a_run_that_mails_nothing_says_so_and_lists_no_earlier_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "mail"
    folder.mkdir()
    (folder / "001-a_at_example.org.eml").write_bytes(b"Subject: earlier\r\n\r\nA line.\r\n")
    with mail_sink(folder) as (_port, sink):
        pass
    _where_to_look(tmp_path, sink.written)
    out = capsys.readouterr().out
    assert f"mail sink: no message this run (1 earlier in {folder.resolve()}/)" in out
    assert ".eml" not in out.replace(f"{folder.resolve()}/", "")
