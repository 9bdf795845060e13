"""citeledger.harness: the rules of codegraph's A/B harness (its file layout, shell reads,
explore diagnostics sidecars, sufficiency)."""
