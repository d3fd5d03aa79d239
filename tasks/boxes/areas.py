"""Left only for ``flows/document.py``, which imports :func:`flags_of` from here while another
change to that file is being merged; once its import names :mod:`tasks.boxes.propose`, delete
this module. Every other caller imports from the module that defines the name."""

from __future__ import annotations

from tasks.boxes.propose import flags_of

__all__ = ["flags_of"]
