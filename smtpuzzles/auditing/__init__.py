"""The audit (auditor, its report in report, steps resting on others in derivations, the re-solves
in resolving, its proof sections in auditproof), a recorded run read back with the puzzle's
referee (readback), and a puzzle's answers held to its brute force (crosscheck)."""
