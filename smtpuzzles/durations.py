"""Seconds in a few characters and counts with their noun, as every progress line and table
writes them."""

from __future__ import annotations


def duration(seconds: float) -> str:
    """0.04s, 12.3s, 4m 05s, 2h 07m, 3d 04h."""
    if seconds < 60:
        return f"{seconds:.2f}s" if seconds < 10 else f"{seconds:.1f}s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes}m {secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours}h {minutes:02d}m"
    days, hours = divmod(hours, 24)
    return f"{days}d {hours:02d}h"


def counted(number: int, noun: str) -> str:
    """`1 check`, `2,340 checks`: the noun in the plural unless there is exactly one."""
    return f"{number:,} {noun}" if number == 1 else f"{number:,} {noun}s"
