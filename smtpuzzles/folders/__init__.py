"""Run folders: reading files nobody vouches for within bounds (bounded), the one reader of run
folders (runfolder), the one writer (ledger), one writer at a time (locking), and the statuses as
one set (statuses). A recorded run read back for the audit, resume and show is audit logic:
smtpuzzles.auditing.readback."""
