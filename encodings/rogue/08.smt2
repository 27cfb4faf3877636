; smtpuzzles rogue 08: base formula of encoding regions
(set-logic QF_LIA)
; R0_0: a region of 21 cells, 3 gold, holding @
(declare-fun R0_0 () Bool)
; R0_5: a region of 1 cell, 1 gold
(declare-fun R0_5 () Bool)
; R5_5: a region of 1 cell, 1 gold
(declare-fun R5_5 () Bool)
; no allowed step joins two regions: a walk from @ stays in its region
(assert R0_0)
(assert (not R0_5))
(assert (not R5_5))
(check-sat)
