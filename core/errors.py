"""Errors a user can act on, and the exit statuses."""

EXIT_OK = 0
EXIT_WARNINGS = 1  # done, but some input was skipped or some session not scored
EXIT_USAGE = 2  # usage, input or ruleset error
EXIT_INTERNAL = 3  # a bug
EXIT_CHECK_FAILED = 4  # `citeledger check`: a check of the spec does not hold


class UserError(Exception):
    """An error whose one-line message tells the user what to fix."""


class InputError(UserError):
    """An input that cannot be read at all: names the file (and line)."""

    def __init__(self, file: str, message: str, line: int = 0):
        self.file, self.line, self.message = file, line, message
        where = f"{file}:{line}" if line else file
        super().__init__(f"{where}: {message}")
