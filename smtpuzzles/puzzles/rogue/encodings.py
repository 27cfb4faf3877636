"""The encodings: `reach` (the default: the answer found by a linear search, stated as a formula the
solver only confirms), `regions` (the flow's question asked of the map contracted to its regions of
allowed steps) and `flow` (a flow over the cells themselves, for small maps).
"""

from __future__ import annotations

from array import array
from collections import Counter

from smtpuzzles.errors import InputError
from smtpuzzles.formula import SmtBuilder, raw, sum_of
from smtpuzzles.encoding import Encoding
from smtpuzzles.objectives import IntMax

from .dungeon import Dungeon
from .search import reach
from .walks import close_region, moves_of, rows_of, tour, walk_collecting


ENCODINGS = ("reach", "regions", "flow")


# -------------------------------------------------------------------------------------------- encode
def cell_name(p) -> str:
    return f"{p[0]}_{p[1]}"


def encode(dungeon: Dungeon, encoding: str = ENCODINGS[0]) -> Encoding:
    if encoding == "reach":
        return encode_reach(dungeon)
    if encoding == "regions":
        return encode_regions(dungeon)
    if encoding == "flow":
        return encode_flow(dungeon)
    raise InputError(f"unknown encoding {encoding!r} ({', '.join(ENCODINGS)})", "--encoding")


def encode_reach(dungeon: Dungeon) -> Encoding:
    """The answer found without a solver, stated as a formula: one search from `@` (search.reach,
    linear in the map) gives the closed set, every cell a walk can reach, and a walk through all its
    gold. The formula contracts the map to that set: `home` says the walk reaches it (asserted), and
    the gold taken is (ite home G 0), G the set's gold. No allowed step leaves the set, so no other
    gold counts: that is the solution's closed_rows, which the referee checks cell by cell without a
    solver. The solver has nothing to search; it answers the two checks the ledger records (a
    model, then UNSAT at G + 1), which `audit --resolve` has z3 and cvc5 answer again. A run needs
    no solver for them (its notes' "answer"): the model is the search's solution, refereed, and the
    UNSAT step is settled by the bound the formula states, G.

    Where the proof lives: in the closed set (the certificate any referee checks), and in the
    search, which the audit runs again when it rebuilds this formula from the recorded map (the
    drift check refuses a run whose formula or queries state another G)."""
    found = reach(dungeon)
    cells = found.inside.count(1)
    solution = found.solution(dungeon)
    smt = SmtBuilder("QF_LIA")
    smt.lines.append(f"; @'s closed set, found by a search over allowed steps: {cells} cell{'s' if cells > 1 else ''}, "
                     f"{found.gold} gold of the map's {dungeon.gold_count}")
    smt.lines.append("; no allowed step leaves it (the solution's closed_rows): a walk from @ takes no other gold")
    smt.bool("home")
    smt.assert_("home")

    def decode(model) -> dict:
        if not model["home"]:  # asserted: a model without it is no model of this formula
            raise ValueError("a model where @'s closed set is not reached")
        return dict(solution)

    objective = IntMax(lambda k: raw(f"(>= (ite home {found.gold} 0) {k})"), upper=dungeon.gold_count)
    # The run records this answer without loading a solver (smtpuzzles.run.answered_without_solver):
    # the solution is refereed, and the closing claim is refuted by the formula's own count.
    answer = {"solution": dict(solution), "value": found.gold, "closing": {"op": "at_least", "k": found.gold + 1},
              "reason": f"the gold taken is (ite home {found.gold} 0), at most {found.gold}; @'s closed set "
                        "(the solution's closed_rows) holds no other gold"}
    return Encoding("reach", 1, smt.formula(), objective, decode, engines=("z3",), notes={"answer": answer})


def region_name(dungeon: Dungeon, region: int) -> str:
    return f"R{cell_name(dungeon.grid.cell(region))}"


def encode_regions(dungeon: Dungeon) -> Encoding:
    """The flow's question asked of the contracted map: one label per region of allowed steps.

    The contraction: the walkable cells split into regions, the connected components under allowed
    steps (`Dungeon.regions`, one linear pass). No allowed step joins two regions, so a walk from
    `@` reaches exactly the cells of `@`'s region: the flow's justification, asked of the graph whose
    nodes are regions, has no edge to carry a unit into any other region, and says `(not R)` for
    each. Declared are `@`'s region and every region holding gold, named by its first cell in
    reading order; the count weighs each label by its region's gold. Regions without gold are left
    out: no claim speaks of them.

    Where the proof lives: the contraction is part of the map -> formula mapping, not of any
    recorded claim. The audit rebuilds this formula from the recorded map with today's code and
    refuses a run whose base formula differs (encoding drift), so a tampered formula or query that
    moves gold into `@`'s region or out of it is refused: that rebuild is the audit of the
    contraction, linear in the map like the contraction itself. The UNSAT step at best + 1 is then
    re-solved from its recorded query by z3 and cvc5 (`audit --resolve`), and the solution's closed
    set, checked by the pure-Python referee, proves the same answer without any solver.

    Measured while choosing: the cell-level flow spends its time in z3's linear arithmetic, not in
    building the formula (150x150: built in 0.4 s, parsed in 1.4 s, first model 15.5 s, UNSAT at
    best + 1 10.1 s; at 100x100 without the closure clauses no first model within 120 s, 23 GB when
    left to run), and grows faster than the map (scripts/bench_rogue.py, 300x300: flow 382 s and
    4.1 GB, regions 2.1 s and 95 MB; regions 1000x1000: 11 s and 0.42 GB, audit --resolve 13 s).
    """
    grid = dungeon.grid
    label = dungeon.regions
    home = label[grid.index(dungeon.start)]
    gold_in: dict[int, int] = {}
    for g in dungeon.gold:
        region = label[grid.index(g)]
        gold_in[region] = gold_in.get(region, 0) + 1
    named = sorted(set(gold_in) | {home})
    size = Counter(label[i] for i in named_cells(label, set(named)))
    smt = SmtBuilder("QF_LIA")
    for region in named:
        cells = f"{size[region]} cell{'s' if size[region] > 1 else ''}"
        smt.lines.append(f"; {region_name(dungeon, region)}: a region of {cells}, "
                         f"{gold_in.get(region, 0)} gold{', holding @' if region == home else ''}")
        smt.bool(region_name(dungeon, region))
    smt.lines.append("; no allowed step joins two regions: a walk from @ stays in its region")
    smt.assert_(region_name(dungeon, home))
    for region in named:
        if region != home:
            smt.assert_(f"(not {region_name(dungeon, region)})")
    gold_count = sum_of([f"(ite {region_name(dungeon, r)} {gold_in[r]} 0)" for r in named if r in gold_in])

    def decode(model) -> dict:
        chosen = {r for r in named if model[region_name(dungeon, r)]}
        inside = bytearray(len(label))
        for i in named_cells(label, chosen):
            inside[i] = 1
        return {"moves": moves_of(dungeon, tour(dungeon, inside)), "closed_rows": rows_of(dungeon, inside)}

    objective = IntMax(lambda k: raw(f"(>= {gold_count} {k})"), upper=len(dungeon.gold))
    return Encoding("regions", 1, smt.formula(), objective, decode, engines=("z3",))


def named_cells(label: array, regions: set) -> list[int]:
    """The grid indices of the cells in `regions`, in reading order."""
    return [i for i, r in enumerate(label) if r in regions]


def encode_flow(dungeon: Dungeon) -> Encoding:
    """Reachability labels, justified by a flow from `@`, and closed under allowed steps.

    Every labelled cell other than the start absorbs one unit of flow, which can only travel along
    allowed steps between labelled cells (one integer per undirected step, its sign the direction),
    and only `@` supplies it. Decomposing such a flow gives a walk from `@` to every labelled cell,
    so no label is unjustified. Closure (a labelled cell labels every cell one allowed step away)
    adds nothing a walk could not do, since allowed steps are symmetric, but lets unit propagation
    label the whole region at once: the first model is already the best one.

    Measured while choosing (scripts/bench_rogue.py keeps the numbers): ranks strictly decreasing
    along a parent step make z3 search for an acyclic choice of parents and took minutes on 100x100;
    the flow is a network-flow feasibility problem with no such search, seconds on the same map.
    """
    smt = SmtBuilder("QF_LIA")
    start = dungeon.start
    steps = dungeon.steps
    for p in dungeon.walkable:
        smt.bool(f"r{cell_name(p)}")
    smt.assert_(f"r{cell_name(start)}")
    balance: dict = {p: [] for p in dungeon.walkable}
    for p in dungeon.walkable:
        for q in steps[p]:
            if p < q:
                f = smt.int(f"f{cell_name(p)}_{cell_name(q)}")
                smt.assert_(f"(=> (not r{cell_name(p)}) (= {f} 0))")
                smt.assert_(f"(=> (not r{cell_name(q)}) (= {f} 0))")
                balance[q].append(f)
                balance[p].append(f"(- {f})")
    for p in dungeon.walkable:
        if p != start:
            smt.assert_(f"(= {sum_of(balance[p])} (ite r{cell_name(p)} 1 0))")
        for q in steps[p]:
            smt.assert_(f"(=> r{cell_name(p)} r{cell_name(q)})")
    gold_count = sum_of([f"(ite r{cell_name(g)} 1 0)" for g in dungeon.gold])

    def decode(model) -> dict:
        labelled = {p for p in dungeon.walkable if model[f"r{cell_name(p)}"]}
        return {"path": walk_collecting(dungeon, labelled), "closed": close_region(dungeon, labelled)}

    # The count lives in the objective's condition, not in the base formula.
    objective = IntMax(lambda k: raw(f"(>= {gold_count} {k})"), upper=len(dungeon.gold))
    return Encoding("flow", 1, smt.formula(), objective, decode, engines=("z3",))
