import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import tempfile  # noqa: E402

# Finished runs are archived on disk (core.engine.archive): the tests' servers and pages keep theirs in a folder
# of this test session, never in the user's ~/.cache/vitlab
os.environ["VITLAB_DATA_DIR"] = tempfile.mkdtemp(prefix="vitlab-test-data-")
