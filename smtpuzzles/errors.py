"""Errors the command line turns into one line and exit status 2."""


class InputError(Exception):
    """Bad input from the user: a message and the place it refers to."""

    def __init__(self, message: str, where: str | None = None):
        super().__init__(message)
        self.message = message
        self.where = where

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message


class PuzzleError(InputError):
    """A puzzle package that breaks the contract where only running it shows (its encoding's
    engines, modes its objective cannot answer, variable names, a decoder or referee that crashes):
    one line naming the puzzle, as bad input is, never a traceback."""


class LedgerError(InputError):
    """A run folder that cannot be read or trusted (missing, malformed, tampered)."""
