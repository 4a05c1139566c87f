"""UI helpers shared by the pages: Plotly figures (``figures``: one module per kind) and small Streamlit pieces (``widgets``).

Every page imports this package, so it also sets what the server process needs before a page computes anything:
torch runs each learner's inference on one thread. The server's sessions are its parallelism, and a second
intra-op thread waits for a core that the browser or another session holds (docs/performance.md, "One torch
thread per page"). Training sets the same for itself (core.engine).

Without importing torch: a page that needs no model (the home page, the glossary) then opens without torch's
import, the larger part of a sleeping app's wake (docs/performance.md). torch reads the variable when imported.
"""

import os
import sys

if "torch" in sys.modules:
    sys.modules["torch"].set_num_threads(1)
else:
    os.environ["OMP_NUM_THREADS"] = "1"
