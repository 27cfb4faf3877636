; smtpuzzles rogue 07: base formula of encoding regions
(set-logic QF_LIA)
; R0_0: a region of 9 cells, 2 gold, holding @
(declare-fun R0_0 () Bool)
; R0_4: a region of 6 cells, 1 gold
(declare-fun R0_4 () Bool)
; no allowed step joins two regions: a walk from @ stays in its region
(assert R0_0)
(assert (not R0_4))
(check-sat)
