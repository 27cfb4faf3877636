; smtpuzzles rogue 10: base formula of encoding regions
(set-logic QF_LIA)
; R0_0: a region of 27 cells, 1 gold, holding @
(declare-fun R0_0 () Bool)
; no allowed step joins two regions: a walk from @ stays in its region
(assert R0_0)
(check-sat)
