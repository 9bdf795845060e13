"""`python -m citeledger.cli`: the same as the `citeledger` command."""

import sys

from citeledger.cli import main

sys.exit(main())
