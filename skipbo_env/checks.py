"""Argument checks at the package's edges: one statement of what each kind of value must be.

A wrong type raises `ArgumentTypeError`, which is both a `TypeError` (as Python's own checks
raise) and a `ValueError` (as callers of earlier releases caught); a value of the right type
but out of range raises `ValueError`. Every message names the argument and the value given.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from typing import Any

import numpy as np


class ArgumentTypeError(TypeError, ValueError):
    """An argument of the wrong type (caught by ``except TypeError`` and ``except
    ValueError`` alike)."""


def is_integer(value: Any) -> bool:
    """Whether `value` is an integer (Python's or numpy's), not a bool."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def integer(value: Any, name: str, *, minimum: int | None = None,
            maximum: int | None = None, what: str | None = None) -> int:
    """`value` as an int, checked to lie in ``minimum..maximum``; `what` replaces the words
    "an integer" in the message (e.g. "a positive integer")."""
    words = what or _integer_words(minimum, maximum)
    if not is_integer(value):
        raise ArgumentTypeError(f"{name} must be {words}, got {value!r}")
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise ValueError(f"{name} must be {words}, got {value!r}")
    return int(value)


def _integer_words(minimum: int | None, maximum: int | None) -> str:
    if minimum is not None and maximum is not None:
        return f"an integer in {minimum}..{maximum}"
    if minimum == 0:
        return "a non-negative integer"
    if minimum == 1:
        return "a positive integer"
    if minimum is not None:
        return f"an integer of at least {minimum}"
    if maximum is not None:
        return f"an integer of at most {maximum}"
    return "an integer"


MAX_FLOAT_INT = 2**53  # larger ints are not numbers a caller meant as a float (or overflow it)


def number(value: Any, name: str, *, minimum: float | None = None,
           above: float | None = None, what: str | None = None) -> float:
    """`value` as a finite float (an int or float, not a bool), at least `minimum` and above
    `above` when given."""
    words = what or ("a finite non-negative number" if minimum == 0 else "a finite number")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                      np.floating)):
        raise ArgumentTypeError(f"{name} must be {words}, got {value!r}")
    if (not math.isfinite(value) if isinstance(value, (float, np.floating))
            else abs(value) > MAX_FLOAT_INT) or (minimum is not None and value < minimum) \
            or (above is not None and not value > above):
        raise ValueError(f"{name} must be {words}, got {value!r}")
    return float(value)


def boolean(value: Any, name: str) -> bool:
    """`value`, which must be True or False."""
    if not isinstance(value, (bool, np.bool_)):
        raise ArgumentTypeError(f"{name} must be true or false, got {value!r}")
    return bool(value)


def seat(value: Any, num_players: int, name: str = "seat") -> int:
    """`value` as a seat number of a game of `num_players`."""
    return integer(value, name, minimum=0, maximum=num_players - 1,
                   what=f"a seat in 0..{num_players - 1}")


def one_of(value: Any, choices: Collection, name: str) -> Any:
    """`value`, which must be one of `choices`."""
    try:
        ok = value in choices
    except TypeError:  # an unhashable value asked of a set
        ok = False
    if not ok:
        listed = [repr(c) for c in choices]
        words = " or ".join(listed) if len(listed) == 2 else f"one of {', '.join(listed)}"
        raise ValueError(f"{name} must be {words}, got {value!r}")
    return value


def seat_or_random(value: Any, num_players: int, name: str = "seat") -> int | str:
    """`value`: "random" or a seat number (an env's choice of the learner's seat)."""
    if isinstance(value, str) and value == "random":
        return value
    return integer(value, name, minimum=0, maximum=num_players - 1,
                   what=f"'random' or a seat in 0..{num_players - 1}")
