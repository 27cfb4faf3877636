"""Where a recorded run read back used to live: it is audit logic, now smtpuzzles.auditing.readback,
whose names this module hands on (`Rules` is `Referee` there) until every caller imports them
from there; then it goes."""

from smtpuzzles.auditing.readback import (  # noqa: F401 - handed on to callers not yet moved
    ReferenceQuery, check_replayable, instance_sha, recorded_claim_terms, recorded_instance, reference_query,
    same_json, todays_encoding, writes_recorded)
from smtpuzzles.auditing.readback import Referee as Rules  # noqa: F401
