"""citeledger.infra: infrastructure without domain (files, JSON lines, atomic writes, process pools, caches, the RE2 adapter).

Nothing here imports the rest of citeledger."""
