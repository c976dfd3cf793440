"""Handlers of the ``paperboy`` commands that belong to one domain package each."""
