"""pandas.read_csv that reads a float as exactly the value written.

citeledger writes floats as Python's shortest repr. pandas 2's default C parser can land one
ulp away from it ("round_trip" reads it exactly); pandas 3 reads it exactly and deprecates the
option. CI runs both (pandas 2 under Python 3.10)."""

from __future__ import annotations

import pandas as pd

EXACT = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}


def read_csv(source, **options) -> pd.DataFrame:
    return pd.read_csv(source, **EXACT, **options)
