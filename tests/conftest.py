"""Shared test setup: hypothesis profiles.

`ci` (the default) is derandomized so every run explores the same examples and
a failure reproduces anywhere; `dev` searches wider with fresh randomness.
Pick one with HYPOTHESIS_PROFILE=dev.
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=60,
    deadline=None,
    derandomize=True,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.register_profile(
    "dev",
    max_examples=500,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# The files citeledger keeps between runs (core/cache.py) go to a directory of
# this test run's own, in this process and every command it starts, never the
# user's ~/.cache.
if "CITELEDGER_TEST_CACHE" not in os.environ:
    import atexit
    import shutil
    import tempfile

    os.environ["CITELEDGER_TEST_CACHE"] = os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="citeledger-cache-")
    atexit.register(shutil.rmtree, os.environ["CITELEDGER_TEST_CACHE"], True)
