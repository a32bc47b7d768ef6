"""Argument checks at the package's edges: one statement of what each kind of value must be.

A wrong type raises `ArgumentTypeError`, which is both a `TypeError` (as Python's own checks
raise) and a `ValueError` (as callers of earlier releases caught); a value of the right type
but out of range raises `ValueError`. Every message names the argument and the value given.
"""

from __future__ import annotations

import math
import reprlib
from collections.abc import Collection
from typing import Any

import numpy as np


class _Shown(reprlib.Repr):
    """reprlib's shortened repr, with huge integers named by their size (Python refuses to
    write an integer of more than 4300 digits)."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel, self.maxlist, self.maxtuple, self.maxdict = 3, 8, 8, 6
        self.maxstring, self.maxother = 60, 60

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > 200:
            return f"<an integer of {x.bit_length()} bits>"
        return repr(x)


_SHOWN = _Shown()


def shown(value: Any) -> str:
    """`value` for an error message: a repr, shortened (long lists, deep nesting, huge integers
    and long strings elided), which never raises for JSON-like values."""
    try:
        return _SHOWN.repr(value)
    except Exception:  # a value whose repr fails: name its type
        return f"<a {type(value).__name__}>"


def shown_keys(keys: Any) -> str:
    """A set of dictionary keys for an error message, sorted (keys of any type)."""
    return "[" + ", ".join(sorted(shown(k) for k in keys)) + "]"


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
        raise ArgumentTypeError(f"{name} must be {words}, got {shown(value)}")
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise ValueError(f"{name} must be {words}, got {shown(value)}")
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
        raise ArgumentTypeError(f"{name} must be {words}, got {shown(value)}")
    if isinstance(value, (int, np.integer)):  # past 2**53 no int is a number meant as a float
        x = float(value) if abs(int(value)) <= MAX_FLOAT_INT else math.inf
    else:
        x = float(value)
    if not math.isfinite(x) or (minimum is not None and x < minimum) \
            or (above is not None and not x > above):
        raise ValueError(f"{name} must be {words}, got {shown(value)}")
    return float(value)


def action(value: Any, n: int) -> int:
    """`value` as an action of a ``Discrete(n)`` space: an integer (Python's or numpy's, or a
    0-d integer array as some libraries pass one) in ``0..n-1``. A float is refused, never
    truncated (80.9 is no action), and so is a bool."""
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value[()]
    if not is_integer(value):
        raise ArgumentTypeError(f"action must be an integer from 0 to {n - 1}, got "
                                f"{shown(value)}")
    if not 0 <= value < n:
        raise ValueError(f"action {shown(value)} is outside 0..{n - 1}")
    return int(value)


def boolean(value: Any, name: str) -> bool:
    """`value`, which must be True or False."""
    if not isinstance(value, (bool, np.bool_)):
        raise ArgumentTypeError(f"{name} must be true or false, got {shown(value)}")
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
        raise ValueError(f"{name} must be {words}, got {shown(value)}")
    return value


def seat_or_random(value: Any, num_players: int, name: str = "seat") -> int | str:
    """`value`: "random" or a seat number (an env's choice of the learner's seat)."""
    if isinstance(value, str) and value == "random":
        return value
    return integer(value, name, minimum=0, maximum=num_players - 1,
                   what=f"'random' or a seat in 0..{num_players - 1}")
