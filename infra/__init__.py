"""citeledger.infra: infrastructure without domain (files, JSON lines, atomic writes, process pools, caches).

Nothing here imports the rest of citeledger."""
