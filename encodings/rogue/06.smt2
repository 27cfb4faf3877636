; smtpuzzles rogue 06: base formula of encoding regions
(set-logic QF_LIA)
; R0_0: a region of 2 cells, 1 gold, holding @
(declare-fun R0_0 () Bool)
; R0_3: a region of 6 cells, 1 gold
(declare-fun R0_3 () Bool)
; no allowed step joins two regions: a walk from @ stays in its region
(assert R0_0)
(assert (not R0_3))
(check-sat)
