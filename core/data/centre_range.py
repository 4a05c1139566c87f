"""An inclusive range of centre coordinates (lo, hi), checked against where a pattern fits: the one check behind
every position range the lab takes (a config's, a dataset's)."""

from __future__ import annotations


def check_range(position_range: tuple[int, int], fits: range, size: int, pattern: str,
                name: str = "position range") -> None:
    """``position_range`` inside ``fits`` (the centres at which ``pattern`` fits a size x size image), or a one-line
    ValueError naming the values."""
    if len(position_range) != 2:
        raise ValueError(f"{name} must be two numbers LO HI, got {position_range}")
    lo, hi = position_range
    if hi < lo:
        raise ValueError(f"{name} {lo}..{hi} is empty: the upper end must be at least the lower")
    if lo < fits[0] or hi > fits[-1]:
        raise ValueError(f"{name} {lo}..{hi} does not fit a {size}x{size} image: {pattern}, so centres must be "
                         f"in {fits[0]}..{fits[-1]}")
