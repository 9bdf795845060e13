"""citeledger.core: the accountant.

Transcripts become sessions, sessions become calls, calls become sections; each
section's characters are charged to the file it returned, and a ruleset's
channels decide which files the final answer cited.
"""

__version__ = "0.1.0"
