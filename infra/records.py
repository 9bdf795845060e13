"""Records any layer makes: how an attrs record pickles, and a warning about input."""

from __future__ import annotations

import operator

import attrs


def pickle_by_fields(cls):
    """Class decorator: pickle an attrs record as its class and field values.

    A multi-job sweep pickles every score in a worker and unpickles it in the
    parent; attrs' default (a state dict set field by field) costs about
    twice as much as calling the class with the values.
    """
    names = [a.name for a in attrs.fields(cls)]
    get = operator.attrgetter(*names)  # a tuple of values for two names or more
    values = get if len(names) > 1 else (lambda self: (get(self),))

    def __reduce__(self):
        return cls, values(self)

    cls.__reduce__ = __reduce__
    return cls


@pickle_by_fields
@attrs.frozen
class InputWarning:
    """Something in the input that was skipped or is doubtful."""

    file: str
    line: int  # 1-based; 0 when it concerns the whole file
    message: str

    def as_dict(self) -> dict:
        return {"file": self.file, "line": self.line, "message": self.message}
