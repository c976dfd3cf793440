"""Running a job now and recording it, shared by ``paperboy jobs run`` and the scheduler: the
job table with when each job runs (``table``), and the run with its ``job_runs`` row, log line
and the incidents that alert the operator (``runs``)."""
