"""The command line and its process runtime: options, entry, the warm runner, the kept server, signals, the terminal (README.md beside)."""
