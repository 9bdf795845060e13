"""citeledger.infra: adapters over the libraries citeledger runs on."""
