"""The built-in report formats, one module each (text, json, csv, html, plot).

Each module holds a format class and the hookimpl registering it
(`citeledger_register_formats`), named under the `citeledger` entry-point
group as every built-in plugin is. A format renders a command's result
record (report/results.py) to str or bytes; it never prints.
"""
