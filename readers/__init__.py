"""citeledger.readers: the built-in transcript readers (plugins, registered by entry point)."""
