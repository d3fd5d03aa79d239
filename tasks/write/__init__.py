"""The set: the in2lambda adapter, the KaTeX check, publishing outputs."""
