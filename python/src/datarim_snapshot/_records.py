"""Bash twin: none (Python only).

Value classes without dataclasses: importing dataclasses (and inspect with it)
costs a command about 10 ms, more than the work of a whole write.

A record lists its fields in ``__slots__`` and sets them in its own ``__init__``;
it compares and prints as a dataclass with the same fields would.
"""

from __future__ import annotations


class Record:
    __slots__: tuple[str, ...] = ()

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({fields})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Record)
        return self._values() == other._values()

    # Defining __eq__ leaves __hash__ None: unhashable, like a dataclass with eq.


class FrozenRecord(Record):
    """A record whose fields cannot be assigned after __init__ (set them with _init)."""

    __slots__ = ()

    def _init(self, **values: object) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        # dataclasses.FrozenInstanceError is an AttributeError with this message.
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")

    def __hash__(self) -> int:
        return hash(self._values())
