"""citeledger's built-in envelope sources: plugins like a third party's.

Each module registers one source through the `citeledger` entry points
(pyproject.toml); the contract is core/source.py, what each one
charges and why is docs/sources.md.
"""
