"""The library under both faces: a session read once and assembled once.

The command line (cli/) and the Python API (api/) are thin faces on this
package: `reading` resolves and reads one session's files (each file claimed
once, several sessions refused), `session` assembles the result a format
renders (`assemble(SessionRequest)`), `compare` and `sensitivity` run
those commands' jobs (a frozen request in, the result record a format renders
out), `limits` holds the range of every number a user can give. The engine
never imports either face, and never prints or writes.
"""
