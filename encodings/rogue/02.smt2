; smtpuzzles rogue 02: base formula of encoding regions
(set-logic QF_LIA)
; R0_0: a region of 9 cells, 0 gold, holding @
(declare-fun R0_0 () Bool)
; R1_4: a region of 1 cell, 1 gold
(declare-fun R1_4 () Bool)
; no allowed step joins two regions: a walk from @ stays in its region
(assert R0_0)
(assert (not R1_4))
(check-sat)
