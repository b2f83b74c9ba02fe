r"""CSV that a spreadsheet opens as data, never as formulas: every CSV mjlog writes
goes through here.

A text cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
return is a formula to Excel, LibreOffice and Google Sheets; a run's path, an
agent's or plugin's name or a parameter can start so. Such a cell is written
behind a single quote (OWASP's "CSV injection" advice), which the spreadsheet
shows and does not evaluate. Numbers are not text: a negative number stays a
number. Lines end in CRLF (RFC 4180, the csv module's own default), so a carriage
return inside a cell is quoted too and cannot start a row of its own.

>>> import pandas as pd
>>> csv_text(pd.DataFrame({"agent": ["=1+1", "greedy"], "points": [-0.5, 2]})).splitlines()
['agent,points', "'=1+1,-0.5", 'greedy,2.0']
>>> csv_text([{"run": "@x", "hand": -1}, {"run": "a\rb"}], ["run", "hand"])
'run,hand\r\n\'@x,-1\r\n"a\rb",\r\n'
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FORMULA_START", "csv_text", "safe_cell"]

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
"""What a text cell a spreadsheet evaluates starts with."""
_END = "\r\n"


def safe_cell(value: Any) -> Any:
    """``value``, behind a single quote when it is text a spreadsheet would evaluate.

    >>> safe_cell("-evil"), safe_cell(-3), safe_cell("greedy")
    ("'-evil", -3, 'greedy')
    """
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def csv_text(
    rows: pd.DataFrame | Iterable[Mapping[str, Any]], columns: Sequence[str] | None = None
) -> str:
    """``rows`` as CSV text with a header, every text cell through :func:`safe_cell`.

    ``rows``: a pandas DataFrame (written as ``to_csv(index=False)`` writes it), or
    mappings written in the order of ``columns``.
    """
    if hasattr(rows, "to_csv"):  # a DataFrame, told apart without importing pandas
        return _frame_csv(cast("pd.DataFrame", rows))
    if columns is None:
        raise TypeError("csv_text of mappings needs the columns")
    f = io.StringIO(newline="")
    w = csv.writer(f, lineterminator=_END)
    w.writerow([safe_cell(str(c)) for c in columns])
    for r in rows:
        w.writerow([safe_cell(r.get(c)) for c in columns])
    return f.getvalue()


def _frame_csv(frame: pd.DataFrame) -> str:
    """:func:`csv_text` of a DataFrame."""
    df = frame.copy()
    for c in df.columns:
        if df[c].dtype.kind not in "biufcmM":  # text (or mixed) columns only
            df[c] = df[c].map(safe_cell)
    df.columns = [safe_cell(str(c)) for c in df.columns]
    return str(df.to_csv(index=False, lineterminator=_END))
