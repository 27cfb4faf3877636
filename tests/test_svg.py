"""The puzzles' SVG drawings (`solve --svg`, `show --svg`, a notebook): safe standalone documents that
hold what the answer holds. Expected values come from the instance and the solution, with the
geometry each drawing module documents (cell size and margin), never from the drawing code itself;
each checker is shown to fail on a drawing with one thing moved."""

from __future__ import annotations

import copy
import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import smtpuzzles
from brute_tatamibari import solutions as tatamibari_solutions
from smtpuzzles import drawing, puzzles
from smtpuzzles.contract import problems
from smtpuzzles.puzzles import kingtour, nonary, rogue, tatamibari
from smtpuzzles.puzzles.kingtour import drawing as king_drawing
from smtpuzzles.puzzles.rogue import drawing as rogue_drawing
from smtpuzzles.puzzles.tatamibari import drawing as tatami_drawing
from test_plugin_example import BOARDS as KINGS_BOARDS
from test_plugin_example import plugin  # noqa: F401 - the fixture, used by name below

SVG = "{http://www.w3.org/2000/svg}"
EXAMPLES = Path(__file__).resolve().parents[1] / "smtpuzzles" / "examples"
HOSTILE = "<script>alert(1)</script> & ]]> \x1b[31m\x07\u202e\x00 end"


def parsed(document: str) -> ET.Element:
    """The document parsed, after the checks every drawing must pass: the SVG namespace and a
    viewBox, and nothing that runs or fetches (no script, no link but the namespace, no CSS import)."""
    root = ET.fromstring(document)
    assert root.tag == f"{SVG}svg" and len(root.get("viewBox").split()) == 4
    assert "<script" not in document.lower() and "@import" not in document and "url(" not in document
    assert set(re.findall(r"https?://[^\s\"'<>]*", document)) <= {"http://www.w3.org/2000/svg"}
    assert "terminal-" not in document  # not rich's recording of a terminal
    return root


def of_class(root: ET.Element, tag: str, name: str) -> list[ET.Element]:
    """Elements `tag` whose class, or an enclosing group's, names `name`."""
    found = []

    def walk(node, inherited):
        classes = inherited | set((node.get("class") or "").split())
        if node.tag == f"{SVG}{tag}" and name in classes:
            found.append(node)
        for child in node:
            walk(child, classes)

    walk(root, set())
    return found


def texts(root: ET.Element, name: str) -> list[str]:
    return [t.text for t in of_class(root, "text", name)]


def points(polyline: ET.Element) -> list[tuple[float, float]]:
    return [tuple(float(v) for v in pair.split(",")) for pair in polyline.get("points").split()]


# ------------------------------------------------------------------------------------------ King's tour
def king_centre(r: int, c: int) -> tuple[float, float]:
    return king_drawing.MARGIN + (c + 0.5) * king_drawing.CELL, king_drawing.MARGIN + (r + 0.5) * king_drawing.CELL


def tour_problems(document: str, board: kingtour.Board, solution: dict) -> list[str]:
    """What the drawing gets wrong about the tour, the box rules and the digits."""
    root, n = parsed(document), board.size
    order = sorted((solution["tour"][r][c], r, c) for r in range(n) for c in range(n))
    expected = [king_centre(r, c) for _, r, c in order]
    found = []
    tours = of_class(root, "polyline", "tour")
    if len(tours) != 1 or points(tours[0]) != expected:
        found.append("the tour polyline is not the N*N cell centres in visiting order")
    start, end = of_class(root, "circle", "start"), of_class(root, "rect", "end")
    if [(float(s.get("cx")), float(s.get("cy"))) for s in start] != expected[:1]:
        found.append("the start marker is not on visit 1")
    if [(float(e.get("x")) + float(e.get("width")) / 2, float(e.get("y")) + float(e.get("height")) / 2)
            for e in end] != expected[-1:]:
        found.append("the end marker is not on the last visit")
    rules = of_class(root, "line", "box-rule")
    edge = lambda k: king_drawing.MARGIN + k * king_drawing.CELL  # noqa: E731
    vertical = sorted(float(r.get("x1")) for r in rules if r.get("x1") == r.get("x2"))
    horizontal = sorted(float(r.get("y1")) for r in rules if r.get("y1") == r.get("y2"))
    if vertical != [edge(k) for k in range(board.box_cols, n, board.box_cols)] or \
            horizontal != [edge(k) for k in range(board.box_rows, n, board.box_rows)]:
        found.append("the heavy box rules do not follow the box shape")
    digits = [kingtour.digits_text([solution["grid"][r][c]]) for r in range(n) for c in range(n)]
    if texts(root, "digit") != digits:
        found.append("the digits are not the solution's, in reading order")
    clues = [kingtour.digits_text([v]) for row in board.clues for v in row if v]
    bold = [t for t in of_class(root, "text", "clue") if t.get("font-weight") == "bold"]
    if [t.text for t in bold] != clues or len(of_class(root, "text", "clue")) != len(clues):
        found.append("the clues are not the bold digits")
    return found


@pytest.fixture(scope="module")
def clued_6x6():
    """A 6x6 board with 2x3 boxes (not square, so rows and columns of boxes differ) and a tour of it."""
    board = kingtour.parse(6, "2x3", (EXAMPLES / "kingtour" / "6x6-clues.txt").read_text())
    solution = kingtour.snake_solution(board)
    assert kingtour.referee(board, solution) == []
    return board, solution


def test_kingtour_draws_the_tour_the_box_rules_and_the_digits(clued_6x6):
    board, solution = clued_6x6
    document = kingtour.draw(board, solution)
    assert tour_problems(document, board, solution) == []
    root = parsed(document)
    assert len(points(of_class(root, "polyline", "tour")[0])) == 36
    assert len(of_class(root, "line", "box-rule")) == (6 // 3 - 1) + (6 // 2 - 1)
    assert len(of_class(root, "rect", "frame")) == 1


def test_the_tour_checks_fail_on_a_drawing_with_one_thing_moved(clued_6x6):
    board, solution = clued_6x6
    document = kingtour.draw(board, solution)
    tour = re.search(r'<polyline points="([^"]*)"', document).group(1)
    pairs = tour.split()
    shifted = " ".join(pairs[:5] + [f"{float(pairs[5].split(',')[0]) + king_drawing.CELL},{pairs[5].split(',')[1]}"]
                       + pairs[6:])
    swapped = " ".join(pairs[:3] + [pairs[4], pairs[3]] + pairs[5:])
    for tampered in (document.replace(tour, shifted), document.replace(tour, swapped)):
        assert "the tour polyline is not the N*N cell centres in visiting order" in tour_problems(tampered, board, solution)
    start = re.search(r'<circle cx="([^"]*)"[^>]*class="start"', document)
    moved = document.replace(start.group(0), start.group(0).replace(f'cx="{start.group(1)}"', 'cx="1"'))
    assert tour_problems(moved, board, solution) == ["the start marker is not on visit 1"]
    rule = re.search(r'<line [^>]*class="box-rule"/>', document).group(0)
    assert tour_problems(document.replace(rule, ""), board, solution) == ["the heavy box rules do not follow the box shape"]
    other = copy.deepcopy(solution)
    other["grid"][0][1], other["grid"][0][2] = other["grid"][0][2], other["grid"][0][1]
    assert tour_problems(document, board, other) == ["the digits are not the solution's, in reading order"]


def test_kingtour_without_a_solution_draws_the_clues_alone(clued_6x6):
    board, _ = clued_6x6
    root = parsed(kingtour.draw(board, None))
    assert not of_class(root, "polyline", "tour") and not of_class(root, "circle", "start")
    assert texts(root, "digit") == ["6"] and len(of_class(root, "line", "box-rule")) == 3


# ------------------------------------------------------------------------------------------- Tatamibari
def rect_of(element: ET.Element) -> tuple[float, ...]:
    return tuple(float(element.get(k)) for k in ("x", "y", "width", "height"))


def region_problems(document: str, board: tatamibari.Board, rectangles) -> list[str]:
    """What the drawing gets wrong about the regions, the frame and the clues."""
    root = parsed(document)
    cell, margin = tatami_drawing.CELL, tatami_drawing.MARGIN
    expected = sorted((margin + left * cell, margin + top * cell, (right - left + 1) * cell, (bottom - top + 1) * cell)
                      for top, left, bottom, right in rectangles)
    found = []
    if sorted(rect_of(e) for e in of_class(root, "rect", "region")) != expected:
        found.append("the region rectangles are not the solution's")
    if [rect_of(e) for e in of_class(root, "rect", "frame")] != [(margin, margin, board.width * cell, board.height * cell)]:
        found.append("no frame round the board")
    if sorted(texts(root, "clue")) != sorted(ch for _, _, ch in board.clues):
        found.append("the clues are not the board's")
    return found


def test_tatamibari_draws_each_region_as_its_rectangle_in_a_frame():
    rows = (EXAMPLES / "tatamibari" / "04.txt").read_text().split()
    board = tatamibari.from_text("\n".join(rows))
    rectangles = tatamibari_solutions(rows, limit=1)[0]  # the brute force's, from the rules alone
    regions = [[0] * board.width for _ in range(board.height)]
    for number, (top, left, bottom, right) in enumerate(sorted(rectangles), 1):
        for r in range(top, bottom + 1):
            for c in range(left, right + 1):
                regions[r][c] = number
    document = tatamibari.draw(board, {"regions": regions})
    assert region_problems(document, board, rectangles) == []
    assert len(of_class(parsed(document), "rect", "region")) == len(rectangles)
    one = re.search(r'<rect [^>]*class="region"/>', document).group(0)
    assert region_problems(document.replace(one, ""), board, rectangles) == ["the region rectangles are not the solution's"]
    frame = re.search(r'<rect [^>]*class="frame"/>', document).group(0)
    assert region_problems(document.replace(frame, ""), board, rectangles) == ["no frame round the board"]
    bare = tatamibari.draw(board, None)
    assert region_problems(bare, board, rectangles) == ["the region rectangles are not the solution's"]
    assert region_problems(bare, board, []) == []  # the instance alone: frame and clues, no regions


# ------------------------------------------------------------------------------------------------ Rogue
NUMPAD = {"7": (-1, -1), "8": (-1, 0), "9": (-1, 1), "4": (0, -1), "6": (0, 1), "1": (1, -1), "2": (1, 0), "3": (1, 1)}


def test_rogue_tells_gold_taken_from_gold_left_by_shape_and_has_a_legend():
    text = (EXAMPLES / "rogue" / "08.txt").read_text()
    result = smtpuzzles.solve("rogue", text)
    dungeon = rogue.load(text, "08.txt", {})
    r, c = dungeon.start
    walk = [(r, c)]
    for key in result.solution["moves"]:
        r, c = r + NUMPAD[key][0], c + NUMPAD[key][1]
        walk.append((r, c))
    gold = {(r, c) for r, row in enumerate(text.splitlines()) for c, ch in enumerate(row) if ch == "$"}
    taken, left = gold & set(walk), gold - set(walk)
    assert len(taken) == result.value and taken and left
    root = parsed(rogue.draw(dungeon, result.solution))
    size, margin = rogue_drawing.cell_size(dungeon), rogue_drawing.MARGIN

    def cells(elements):
        return {(round((float(e.get("cy")) - margin) / size - 0.5), round((float(e.get("cx")) - margin) / size - 0.5))
                for e in elements}

    group = {g.get("class"): g for g in root.iter(f"{SVG}g")}
    discs, rings = list(group["gold-taken"]), list(group["gold-left"])
    assert cells(discs) == taken and cells(rings) == left
    assert group["gold-taken"].get("fill") not in (None, "none") and group["gold-left"].get("fill") == "none"
    walk_line = of_class(root, "polyline", "walk")
    assert len(walk_line) == 1 and len(points(walk_line[0])) == len(walk)
    legend = " ".join(t.text for t in group["legend"].iter(f"{SVG}text"))
    assert f"gold taken: {len(taken)}" in legend and f"gold left: {len(left)}" in legend and "wall" in legend


# ----------------------------------------------------------------------------------------------- Nonary
def test_nonary_draws_the_plan_as_a_table():
    game = nonary.load((EXAMPLES / "nonary" / "07.json").read_text(), "07.json", {})
    result = smtpuzzles.solve("nonary", str(EXAMPLES / "nonary" / "07.json"))
    root = parsed(nonary.draw(game, result.solution))
    cells = texts(root, "cell")
    where = {p: "0" for p in range(1, 10)}
    for i, move in enumerate(result.solution["moves"]):
        number, origin, target = game.doors[move["door"]]
        for p in move["players"]:
            where[p] = "exit" if target == -1 else str(target)
        row = cells[(i + 1) * 12:(i + 2) * 12]  # the start row first; 3 + 9 columns a row
        assert row[0] == str(i + 1) and row[1].startswith(f"#{move['door']} [{number}] {origin} ")
        assert row[2] == f"{'+'.join(map(str, move['players']))} = {sum(move['players'])}"
        assert row[3:] == [where[p] for p in range(1, 10)]
    assert len(cells) == 12 * (len(result.solution["moves"]) + 1)
    assert any(t == f"escape plan: {result.value} of 9 escape" for t in texts(root, "plan-heading"))


# ----------------------------------------------------------------------------------------------- hostile
def test_hostile_words_are_escaped_and_the_document_still_parses():
    label = "<b>&amp;]]>\u202e"  # load refuses the U+202E; a drawing escapes it all the same
    assert nonary.from_doors([[4, 0, "<b>&amp;]]>"], [9, "<b>&amp;]]>", -1]]).doors[0][2] == "<b>&amp;]]>"
    game = nonary.Game(((4, 0, label), (9, label, -1)))
    document = drawing.titled(nonary.draw(game, None), [f"smtpuzzles {HOSTILE}"], [HOSTILE])
    root = parsed(document)
    shown = drawing.printable(HOSTILE)
    assert "\x1b" not in document and "\x00" not in document and "\u202e" not in document and "]]>" not in document
    assert [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "caption"] == [shown]
    assert f"smtpuzzles {shown}" in [t.text for t in root.iter(f"{SVG}text")]
    assert "<b>&amp;]]>\\u202e" in [t.text for t in root.iter(f"{SVG}text")]  # the label, whole and inert


# -------------------------------------------------------------------------------------------------- CLI
def test_solve_and_show_save_the_drawing(cli, tmp_path):
    runs, out = tmp_path / "runs", tmp_path / "out.svg"
    code, _, err = cli("solve", "kingtour", "--size", 4, "--box", "2x2", "--out", runs, "--svg", out)
    assert code == 0, err
    (run_dir,) = runs.iterdir()
    solution = json.loads((run_dir / "solution.json").read_text())["solution"]
    board = kingtour.parse(4, "2x2", None)
    root = parsed(out.read_text())
    assert [t.text for t in of_class(root, "text", "heading")] == ["smtpuzzles kingtour: 4x4, 2x2 boxes"]
    assert texts(root, "caption")[0] == "status: optimal (proved best)"
    nested = root.find(f"{SVG}svg")
    assert tour_problems(ET.tostring(nested, encoding="unicode"), board, solution) == []

    hostile = tmp_path / f"run {HOSTILE.replace(chr(0), '')}"
    shutil.copytree(run_dir, hostile)
    shown = tmp_path / "show.svg"
    code, _, err = cli("show", hostile, "--svg", shown)
    assert code == 0, err
    root = parsed(shown.read_text())
    assert [t.text for t in of_class(root, "text", "heading")] == [
        "smtpuzzles kingtour: 4x4, 2x2 boxes", f"run {drawing.printable(hostile.name)}"]


def test_an_infeasible_run_draws_the_instance_with_its_status(cli, tmp_path):
    clues, out = tmp_path / "clues.txt", tmp_path / "none.svg"
    clues.write_text("11\n..\n")
    code, _, err = cli("solve", "kingtour", "--size", 2, "--box", "1x2", "--clues", clues, "--out", tmp_path / "runs",
                       "--svg", out)
    assert code == 0, err
    root = parsed(out.read_text())
    assert not of_class(root, "polyline", "tour") and texts(root, "digit") == ["1", "1"]
    assert texts(root, "caption")[0] == "status: infeasible: no solution exists"


def test_a_plugin_without_draw_still_gets_the_terminal_picture(plugin, cli, tmp_path):  # noqa: F811
    assert puzzles.get("kings").draw is None
    runs, out, shown = tmp_path / "runs", tmp_path / "kings.svg", tmp_path / "show.svg"
    code, _, err = cli("solve", "kings", KINGS_BOARDS[2], "--out", runs, "--svg", out)
    assert code == 0, err
    assert out.read_text().startswith("<svg") and "terminal-" in out.read_text()
    (run_dir,) = runs.iterdir()
    code, _, err = cli("show", run_dir, "--svg", shown)
    assert code == 0 and "terminal-" in shown.read_text(), err


def test_a_drawing_that_is_not_svg_gives_way_to_the_terminal_picture(cli, tmp_path, monkeypatch):
    monkeypatch.setattr(puzzles.get("nonary"), "draw", lambda game, solution: "<html>no svg</html>")
    out = tmp_path / "plan.svg"
    code, _, err = cli("solve", "nonary", EXAMPLES / "nonary" / "01.json", "--out", tmp_path / "runs", "--svg", out)
    assert code == 0 and "nonary's drawing is not used: the drawing is not an SVG document" in err
    assert "terminal-" in out.read_text()


# ----------------------------------------------------------------------------------- contract, notebook
def test_the_draw_hook_is_optional_and_checked():
    assert all(puzzles.get(name).draw is not None for name in ("kingtour", "tatamibari", "rogue", "nonary"))
    assert problems(kingtour) == []
    wrong = type("Wrong", (), {name: getattr(kingtour, name) for name in dir(kingtour) if not name.startswith("_")})
    wrong.draw = staticmethod(lambda instance: "")
    assert problems(wrong) == ["draw must take 2 arguments"]


def test_a_notebook_shows_the_drawing_where_the_puzzle_has_one():
    result = smtpuzzles.solve("kingtour", {"size": 4, "box": "2x2"})
    root = parsed(result._repr_svg_())
    assert texts(root, "caption")[:2] == ["status: optimal (proved best)", f"value: {result.value}"]
    assert result._repr_html_() is None  # HTML would win over SVG in a notebook
    bare = copy.copy(result)
    bare._module = copy.copy(result._module)
    bare._module.draw = None
    assert bare._repr_svg_() is None and bare._repr_html_().startswith("<pre")
    # (IPython's DisplayFormatter, given these two answers, puts only image/svg+xml in the bundle:
    # checked by hand; IPython is not a test dependency, and no test here is skipped.)


def test_a_drawing_carries_its_title_as_alt_text(tmp_path):
    """A notebook or a page shows the SVG inline: its title (headings and caption, status and value
    among them) is its accessible name, escaped as an attribute."""
    import re

    import smtpuzzles

    result = smtpuzzles.solve("kingtour", {"size": 4, "box": "2x2"}, out=tmp_path)
    svg = result._repr_svg_()
    label = re.search(r'<svg[^>]* role="img" aria-label="([^"]*)"', svg)
    assert label and "kingtour" in label[1] and "optimal" in label[1]
    assert repr(result.audit()).startswith("<AuditResult consistent: kingtour optimal ")
