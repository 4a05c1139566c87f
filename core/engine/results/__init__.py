"""What a run produced and what it shows: per-seed results, what each model answers, verdicts with their intervals."""
