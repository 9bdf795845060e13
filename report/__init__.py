"""citeledger.report: render scores as text, JSON, CSV, HTML and plots; nothing here writes (cli/output.py does)."""
