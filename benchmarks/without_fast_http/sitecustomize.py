"""On ``PYTHONPATH`` (see ``benchmarks/python-without-fast-http``): httptools and uvloop cannot be imported, so
uvicorn, Streamlit's server, falls back to its pure-Python HTTP parser and asyncio's loop, as it ran before
they were in requirements.txt. For measuring a baseline in the environment it had."""

import sys

sys.modules["uvloop"] = None  # an import of it raises ImportError
sys.modules["httptools"] = None
