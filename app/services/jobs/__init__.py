"""Running a job now and recording it, shared by ``paperboy jobs run`` and the scheduler: the
job table (``table``), when each job runs (``schedules``), the run with its ``job_runs`` row
and log line (``runs``), and the incidents that alert the operator (``alerts``)."""
