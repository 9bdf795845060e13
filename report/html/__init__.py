"""HTML reports: one self-contained page per score/explain, sweep, compare and sensitivity.

Each page renders from the same dicts the JSON output is built from (one model,
several renderers), so its numbers are the text's and the JSON's.
"""

from citeledger.report.html.compare import compare_page
from citeledger.report.html.sensitivity import sensitivity_page
from citeledger.report.html.session import session_page
from citeledger.report.html.sweep import keep as sweep_session, sweep_page

__all__ = ["compare_page", "sensitivity_page", "session_page", "sweep_page", "sweep_session"]
