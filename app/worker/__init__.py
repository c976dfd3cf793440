"""Scheduled jobs (issue 8): the job table, arXiv's calendar, job runs, the lease, alerts."""
