"""The optional C extensions; everything else is in pyproject.toml.

core/_kernel.c cuts responses into sections; core/_scan.c reads transcript
lines; core/_match.c matches the shipped citation patterns. optional=True:
where no C compiler exists the build of an extension fails quietly and
citeledger runs its pure-Python path (citeledger --version says which runs).
"""

from setuptools import Extension, setup

setup(ext_modules=[
    Extension("citeledger.core._kernel", ["core/_kernel.c"], optional=True),
    Extension("citeledger.core._scan", ["core/_scan.c"], optional=True),
    Extension("citeledger.core._match", ["core/_match.c"], optional=True),
])
