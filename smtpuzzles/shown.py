"""Text from outside (a folder's name, a string in a run folder, a path the user gave) made safe
to show: the one way such text reaches a terminal.

An escape sequence in a folder name could write to the clipboard (OSC 52), hide or paint over the
verdict (ESC[8m), or make a link; rich would also read `[reverse]` or `[link=...]` in a plain
string as markup. So every character that does not print is shown as its Python escape (`\\x1b`,
`\\u202e`) and the result is only ever handed to rich as a `Text`, never parsed as markup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # rich is loaded only where a picture is drawn: `solve --json` and plain lines need none of it
    from rich.text import Text


def escaped(value: object) -> str:
    """`value` as one printable line: control, format and separator characters as escapes."""
    text = str(value)
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def plain(value: object, style: str = "") -> Text:
    """`value` escaped, as rich Text (never read as markup or emoji codes)."""
    from rich.text import Text

    return Text(escaped(value), style=style)
