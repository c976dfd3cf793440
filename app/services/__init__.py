"""The use cases shared by the command line, the scheduler and the web app: each a function of
(settings, a session factory, now, inputs) returning a typed report (``reports``)."""
