"""The ``paperboy`` command: each module parses its commands' arguments, calls a use case of
``app.services`` (or a domain function for operator tools), prints the report and picks the
exit code."""
