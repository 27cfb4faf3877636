"""Work sharing for hard questions: one question split into many cubes by look-ahead, each cube run
within a conflict budget on a worker, a cube still open split again and its children queued, on
local processes or a Dask cluster through one runner; the first SAT cube answers and stops the
rest, and the refuted cubes are recorded as one summary (a complete decision tree) an audit checks.

    tree.py    the summary and its pure-Python check (no solver imported)
    worker.py  a cube on a worker: the budgeted solve, the look-ahead split
    pools.py   local processes or Dask, behind one interface
    runner.py  the coordinator: queue, re-split, race, Ctrl-C and the time limit

Nothing here imports a puzzle: a question is clauses and assumptions over a base formula.
"""
