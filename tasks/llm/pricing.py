"""What a model call cost, from a price table a user can update (``prices.toml``).

The table (beside this module, or the file ``SHEET2LAMBDA_PRICES`` names) gives per model
id US dollars per million input, output, cache-read and cache-write tokens and the
model's maximum output tokens; its header explains the lookup (OpenRouter ids reduced,
aliases, date and platform suffixes; never a version by prefix). An unknown model costs
0.0 and a warning on the ``sheet2lambda.llm`` logger says so, once per model.
"""

from __future__ import annotations

import logging
import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Mapping

from schemas.routes import Usage
from tasks.llm.secrets import setting

log = logging.getLogger("sheet2lambda.llm")

DEFAULT_TABLE = Path(__file__).with_name("prices.toml")

# What may follow a table id in a model's id: a date, a "latest" tag, a platform
# version ("-v1:0", "@20250514", ":0"). Anything else (a version "-7") is another model.
_SUFFIX = re.compile(r"^(?:[-@]\d{8}|-latest\b|-v\d|[:@])")


@dataclass(frozen=True)
class Price:
    """One model's prices in US dollars per million tokens, and its maximum output tokens."""

    model: str
    input: float
    output: float
    cache_read: float
    cache_write: float
    max_output: int | None


def table_path() -> Path:
    """The price table in use: ``SHEET2LAMBDA_PRICES`` when set, else ``prices.toml`` here."""
    custom = setting("SHEET2LAMBDA_PRICES")
    return Path(custom) if custom else DEFAULT_TABLE


@lru_cache(maxsize=8)
def _load(path: str, mtime_ns: int) -> dict[str, Price]:
    with open(path, "rb") as f:
        data = tomllib.load(f)
    table: dict[str, Price] = {}
    for model, row in (data.get("models") or {}).items():
        try:
            price = Price(
                model=model,
                input=float(row["input"]),
                output=float(row["output"]),
                cache_read=float(row.get("cache_read", 0.1 * float(row["input"]))),
                cache_write=float(row.get("cache_write", 1.25 * float(row["input"]))),
                max_output=int(row["max_output"]) if row.get("max_output") else None,
            )
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"{path}: model {model!r}: {e.__class__.__name__} {e}") from None
        for name in [model, *row.get("aliases", [])]:
            table[normalise(name)] = price
    return table


def load_table() -> dict[str, Price]:
    """The price table, keyed by normalised id (aliases included); re-read when the file changes.

    Raises ``ValueError`` (naming the file and model) for a row without ``input`` or
    ``output``, ``OSError`` when the file cannot be read, ``tomllib.TOMLDecodeError``
    when it is not TOML.
    """
    path = table_path()
    return _load(str(path), path.stat().st_mtime_ns)


def normalise(model: str) -> str:
    """A model id as the table keys it: lower case, any ``vendor/`` prefix dropped, dots
    in the name as dashes (``anthropic/claude-sonnet-5.5`` → ``claude-sonnet-5-5``)."""
    name = model.strip().lower().rsplit("/", 1)[-1]
    return name.replace(".", "-")


def price(model: str) -> Price | None:
    """The price row of ``model`` (see the module docstring for the lookup), or ``None``."""
    name = normalise(model)
    table = load_table()
    if name in table:
        return table[name]
    best = None
    for key, row in table.items():
        if name.startswith(key) and _SUFFIX.match(name[len(key):]):
            if best is None or len(key) > len(best[0]):
                best = (key, row)
    return best[1] if best else None


def max_output(model: str) -> int | None:
    """The model's maximum output tokens from the table, or ``None`` when unknown."""
    row = price(model)
    return row.max_output if row else None


_warned: set[str] = set()


def cost(model: str, counts: Mapping[str, int]) -> float:
    """US dollars for ``counts`` tokens of ``model``.

    ``counts`` keys (missing ones are 0): ``input_tokens`` (uncached input),
    ``output_tokens``, ``cache_read_tokens``, ``cache_write_tokens``. An unknown model
    costs 0.0 and logs one warning per model on ``sheet2lambda.llm``.
    """
    row = price(model) if model else None
    if row is None:
        if model not in _warned:
            _warned.add(model)
            log.warning("no price for model %r in %s: its cost is counted as 0.0", model, table_path())
        return 0.0
    dollars = (
        counts.get("input_tokens", 0) * row.input
        + counts.get("output_tokens", 0) * row.output
        + counts.get("cache_read_tokens", 0) * row.cache_read
        + counts.get("cache_write_tokens", 0) * row.cache_write
    ) / 1_000_000
    return round(dollars, 8)


def usage(
    model: str,
    input_tokens: int = 0,
    output_tokens: int = 0,
    cache_read_tokens: int = 0,
    cache_write_tokens: int = 0,
    provider_cost: float | None = None,
) -> Usage:
    """A reply's :class:`Usage`: all input tokens (uncached + cache read + cache write) in,
    output tokens out, and the cost: ``provider_cost`` when the provider reported one,
    else :func:`cost` from the table."""
    counts = {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cache_read_tokens": cache_read_tokens,
        "cache_write_tokens": cache_write_tokens,
    }
    dollars = float(provider_cost) if provider_cost is not None else cost(model, counts)
    return Usage(
        input_tokens=input_tokens + cache_read_tokens + cache_write_tokens,
        output_tokens=output_tokens,
        cost_usd=dollars,
    )
