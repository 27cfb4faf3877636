"""The statuses a run can have, as one set: every module that asks "is it finished?" asks here."""

RUNNING = "running"  # being written, or killed (only a kill leaves a run `running` on disk)
ANSWERED = ("optimal", "solved", "infeasible")  # the run answered its question: never resumed
UNANSWERED = ("unknown", "interrupted")  # stopped without an answer (time limit, Ctrl-C): resumable
STOPPED = ANSWERED + UNANSWERED  # stopped on its own, so run.json seals its steps
STATUSES = (RUNNING,) + STOPPED
RESUMABLE = (RUNNING,) + UNANSWERED
