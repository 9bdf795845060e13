"""citeledger.channels: the ways an answer can cite a returned file.

Each channel is a pluggy plugin module (hookimpl `citeledger_register_channels`,
see citeledger.core.hookspecs) implementing the `Channel` protocol of
citeledger.core.channel. The built-in ones are listed in core's default-plugins
list (citeledger.core.plugins.DEFAULT_PLUGINS); a third-party package registers
its own through the `citeledger.channels` entry-point group
(docs/write-a-channel.md).
"""
