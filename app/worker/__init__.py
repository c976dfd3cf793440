"""The scheduler process (``paperboy scheduler``): the lease that lets one of several act, and
the APScheduler loop that fires the job table of ``app.services.jobs`` on its schedule."""
