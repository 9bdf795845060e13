"""citeledger.channels: the ways an answer can cite a returned file.

Each channel is a pluggy plugin (see citeledger.core.hookspecs); `path` and
`symbol` are built in and registered through the `citeledger.channels`
entry-point group like any third-party channel.
"""
