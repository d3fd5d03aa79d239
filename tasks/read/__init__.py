"""The two readings: route A (one model call) and route B (a Lua filter run in the sandbox)."""
