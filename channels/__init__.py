"""citeledger.channels: the ways an answer can cite a returned file.

Each channel is a pluggy plugin module (hookimpl `citeledger_register_channels`,
see core/hookspecs.py) implementing the `Channel` protocol of
core/channel.py, judging and rendering its own evidence. The built-in
ones are listed under the `citeledger` entry-point group of
citeledger's pyproject.toml, as a third-party package lists its own
(docs/write-a-channel.md).
"""
