"""One citeledger command in this process; its CPU and its workers' (waited-for children) on stderr.

    .venv/bin/python bench/cpu.py sweep -q DIR -j 2 --json >/dev/null
"""

import resource
import sys
import time

from citeledger.cli import main

start = time.perf_counter()
try:
    main(sys.argv[1:])
except SystemExit:
    pass
me, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
sys.stderr.write(f"wall {time.perf_counter() - start:.2f} s; parent CPU {me.ru_utime:.2f}+{me.ru_stime:.2f} s, "
                 f"workers {workers.ru_utime:.2f}+{workers.ru_stime:.2f} s (user+sys); peak RSS parent "
                 f"{me.ru_maxrss // 1024} MB, largest worker {workers.ru_maxrss // 1024} MB\n")
