"""``python -m core``: the command line (``core/cli.py``) as a process of its own.

It leaves without the interpreter's teardown once its output is written and its workers are ended:
unloading torch is a noticeable part of a short run (measured: docs/performance.md).
"""

import os
import sys

from core.cli import main

if __name__ == "__main__":
    code = main(process=True)
    sys.stdout.flush()
    sys.stderr.flush()
    if "core.engine.running.pool" in sys.modules:  # its atexit hook would end the workers: end them now
        sys.modules["core.engine.running.pool"].shutdown_server_pool()
    os._exit(code)
