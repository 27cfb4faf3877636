"""`show`: a run folder drawn, or where a running one stands, and `--follow` until it is sealed."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console, Group
from rich.live import Live
from rich.text import Text

from smtpuzzles.cli.common import value_field
from smtpuzzles.shown import escaped, plain
from smtpuzzles.objectives import best_is_value, proves_prefix
from smtpuzzles.render import print_all, status_text, summary_panel


def cmd_show(args) -> int:
    if args.follow:
        follow_show(Path(args.run_dir), Console())
    console = Console(record=bool(args.svg))  # the SVG holds the final picture, not the frames before it
    print_all(console, show_pictures(Path(args.run_dir))[2])
    if args.svg:  # the puzzle's own drawing; for a puzzle without `draw`, the terminal's picture as rich records it
        from smtpuzzles import pictures

        drawn = pictures.show_drawing(Path(args.run_dir))
        if drawn is None:
            console.save_svg(args.svg, title=f"smtpuzzles {escaped(Path(args.run_dir).name)}")
        else:
            pictures.write(args.svg, drawn)
    return 0


def show_pictures(run_dir: Path, compact: bool = False) -> tuple[dict, object, list]:
    """(the run record, its progress, what `show` prints): a run still going or stopped part-way gets its
    progress (where, best so far, checks per minute, slowest checks, estimate), a finished one its
    result and one progress line. `compact` (a live display): the panel and the best value only."""
    from smtpuzzles.live import UNFINISHED, duration, fields as progress_fields, read_live, summary_line
    from smtpuzzles.auditing.readback import Referee, recorded_instance

    live = read_live(run_dir)  # checked like the audit reads it (schema, caps, chain), with no lock taken
    folder, progress = live.folder, live.progress
    run, steps = folder.run, folder.steps
    module, instance = recorded_instance(run, str(folder.path / "run.json"))
    counts: dict[str, int] = {}
    for s in steps:
        counts[s["result"]] = counts.get(s["result"], 0) + 1
    status = status_text(run["status"])
    if run["status"] == "running" and not steps:
        status.append(" (no step written yet)", style="")
    elif run["status"] == "running" and live.last_write is not None:
        # A killed writer leaves a run `running` too: how long ago the last step came tells them apart.
        status.append(f" (last step written {duration(live.last_write)} ago)", style="")
    about = [("encoding", f"{run['encoding']['name']} v{run['encoding']['version']}"),
             ("engine", f"{run['engine']['name']} {run['engine'].get('version', '')}"),
             ("steps", ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) or "none"),
             ("started", run.get("started")),
             # A resumed run keeps its last session's end in run.json until it is sealed again.
             ("ended", run.get("ended") if run["status"] != "running" and run.get("ended") else "—")]
    unfinished = run["status"] in UNFINISHED
    if unfinished:
        show_value = module.value_json if best_is_value(progress.objective) else None
        shown_fields = [("status", status), *progress_fields(progress, show_value)]
        if not show_value:
            shown_fields.insert(1, ("value", value_field(run.get("value"))))
        fields = shown_fields + ([] if compact else about)
    else:
        seconds = sum(s.get("seconds", 0) for s in steps)
        fields = [("status", status), ("value", value_field(run.get("value"))), *about[:3], ("solver time", f"{seconds:.1f}s"),
                  *about[3:]]
    shown = [summary_panel(plain(f"{run['puzzle']} run {folder.path.name}"), fields, run["status"])]
    if not unfinished:
        shown.append(Text(summary_line(progress)))
    proved = progress.proved if proves_prefix(run.get("objective")) else None
    if compact:
        if progress.best is not None and best_is_value(progress.objective):
            shown.append(module.progress(progress.best, proved))
    elif folder.solution is not None:
        # Only a solution that passes the referee is drawn: a folder is anyone's data.
        problems, _ = Referee(module, instance).judge(folder.solution, str(folder.path / "solution.json"))
        if problems:
            shown.append(Text(f"solution.json breaks the rules: {problems[0]}", style="bold red"))
        else:
            shown.append(module.render(instance, folder.solution, proved))
    return run, progress, shown


def follow_show(run_dir: Path, console: Console) -> None:
    """`show --follow` until the run is sealed: the picture read again every few seconds (a run
    whose writer was killed stays `running`: Ctrl-C stops watching it). On a terminal it is redrawn
    in place; elsewhere a line is printed each time it changes. The caller prints the whole
    picture after."""
    from smtpuzzles import live as progress
    from smtpuzzles.folders.locking import writer_active

    def going(run) -> bool:  # sealed but locked: a resume has just taken the folder, and will unseal it
        return run["status"] == "running" or writer_active(run_dir)

    run, now, shown = show_pictures(run_dir, compact=True)
    if console.is_terminal:
        with Live(Group(*shown), console=console, auto_refresh=False, transient=True) as view:
            while going(run):
                progress.pause(progress.FOLLOW_SECONDS)
                run, now, shown = show_pictures(run_dir, compact=True)
                view.update(Group(*shown), refresh=True)
    else:
        said = None
        while going(run):
            line = progress.summary_line(now)
            if line != said:
                console.print(Text(line), soft_wrap=True)
                said = line
            progress.pause(progress.FOLLOW_SECONDS)
            run, now, shown = show_pictures(run_dir, compact=True)
