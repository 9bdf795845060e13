"""Integer options with their documented range, declared once on the field that holds them.

A ruleset key's range lives in the attrs field's metadata (`bounded`): the
ruleset loader checks a YAML value against it before building anything (one
line naming key and range), the validator holds every other way of making
the record, and docs and tests list the ranges from the same fields.
"""

from __future__ import annotations

import attrs

# A key whose field declares no range (a plugin's int option): a 32-bit range.
INTEGER_RANGE = (-(2**31), 2**31 - 1)


def bounded(low: int, high: int, **kwargs):
    """An attrs int field that takes `low` to `high` (inclusive); `metadata` adds to its range."""
    metadata = {"range": (low, high), **kwargs.pop("metadata", {})}
    return attrs.field(validator=[attrs.validators.ge(low), attrs.validators.le(high)],
                       metadata=metadata, **kwargs)


def field_range(field: attrs.Attribute) -> tuple[int, int]:
    """The declared range of an int field, or INTEGER_RANGE."""
    return field.metadata.get("range", INTEGER_RANGE)
