"""Answer boxes: proposal per part, answer reading (pint, sympy), score against an export."""
