; smtpuzzles rogue 05: base formula of encoding regions
(set-logic QF_LIA)
; R0_0: a region of 15 cells, 0 gold, holding @
(declare-fun R0_0 () Bool)
; R0_6: a region of 6 cells, 1 gold
(declare-fun R0_6 () Bool)
; no allowed step joins two regions: a walk from @ stays in its region
(assert R0_0)
(assert (not R0_6))
(check-sat)
