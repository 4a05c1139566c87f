import sys

from core.cli import main

if __name__ == "__main__":  # guarded: worker processes import the main module again
    sys.exit(main())
