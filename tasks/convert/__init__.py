"""Document → markdown that keeps the sheet's structure: inputs, pairing, pandoc, LaTeX handling."""
