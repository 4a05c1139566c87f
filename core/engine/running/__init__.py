"""Running: the loop, the worker processes, the pool within the server's budget, one run, one training per distinct setting."""
