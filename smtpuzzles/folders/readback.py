"""Where a recorded run read back used to live: it is audit logic, now smtpuzzles.auditing.readback.
Until every caller imports it from there, this name is that same module (`Rules` is its `Referee`),
so a name set on either is the one both read; then this file goes."""

import sys

from smtpuzzles.auditing import readback

readback.Rules = readback.Referee  # its old name, for callers not yet moved
sys.modules[__name__] = readback
