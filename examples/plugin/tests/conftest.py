"""These tests drive smtpuzzles' own commands, which find the puzzle through its entry point."""

import pytest


def pytest_configure(config):
    from smtpuzzles import puzzles

    if "kings" not in puzzles.names():
        raise pytest.UsageError("the kings puzzle is not registered: pip install ./examples/plugin first")
