"""Write ``core/data/uci_digits.csv.gz``, the handwritten digits lesson 5 trains on, from scikit-learn's bundled
copy of the UCI "Optical Recognition of Handwritten Digits" test set (a development dependency only).

    python -m scripts.make_digits          # write the file
    python -m scripts.make_digits --check  # compare the shipped file with scikit-learn's copy

One line per image: its label, then its 64 pixel counts (0..16) row by row. The file is gzip with no time
stamp, so the same data gives the same bytes and the SHA-256 in ``core/data/digits.py`` pins it.
"""

from __future__ import annotations

import gzip
import hashlib
import sys

import numpy as np

from core.data.digits import DATA_FILE, SHA256


def from_scikit_learn() -> bytes:
    from sklearn.datasets import load_digits  # scikit-learn: requirements-dev.txt only

    digits = load_digits()
    pixels = digits.images.reshape(len(digits.images), -1).astype(np.int64)  # (1797, 64) counts 0..16
    lines = [",".join(map(str, [int(label), *row])) for label, row in zip(digits.target, pixels, strict=True)]
    return gzip.compress(("\n".join(lines) + "\n").encode(), compresslevel=9, mtime=0)


def main(argv: list[str]) -> int:
    data = from_scikit_learn()
    digest = hashlib.sha256(data).hexdigest()
    if "--check" in argv:
        same = DATA_FILE.read_bytes() == data
        print(f"{DATA_FILE.name}: {'identical to' if same else 'DIFFERS from'} scikit-learn's copy (sha256 {digest})")
        return 0 if same else 1
    DATA_FILE.write_bytes(data)
    print(f"wrote {DATA_FILE} ({len(data)} bytes, sha256 {digest}); pinned: {digest == SHA256}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
