"""Running games: the Python-facing layer over the kernel (chunks, seeds, records)."""
