"""The audit (auditor, with its proof sections in auditproof), and a puzzle's answers held to its
brute force (crosscheck)."""
