"""What a run is and what it may cost: its setting, validated once; the machine's limits; the code's fingerprint; the cost model."""
