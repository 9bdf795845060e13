"""citeledger.metrics: figures measured from one transcript beside the accountant's score
(core/metric.py): the harness's residual context occupancy (`occupancy`) and run basics (`run`).

Each module is a plugin registered under the `citeledger` entry-point group, as
channels and readers are; it imports only `citeledger.core`'s public names.
"""
