"""Agreement, checks and flags: folding notation, the verbatim check, tiers, adjudication, coverage."""
