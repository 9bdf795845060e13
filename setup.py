"""The optional C kernel (core/_kernel.c); everything else is in pyproject.toml.

optional=True: where no C compiler exists the build of the extension fails
quietly and citeledger runs its pure-Python path (citeledger --version says
which one runs).
"""

from setuptools import Extension, setup

setup(ext_modules=[
    Extension("citeledger.core._kernel", ["core/_kernel.c"], optional=True),
    Extension("citeledger.core._match", ["core/_match.c"], optional=True),
])
