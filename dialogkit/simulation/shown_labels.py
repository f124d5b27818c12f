"""The labels a reply shows for one entity type's values, indexed once per simulation run.

The summary invariant asks, for a value the user took back, which other values' labels hold its
form ("元" is inside "美元"). Scanning a catalogue's 10,000 values for that on every turn was most
of a simulated turn; one lowered text of all labels answers it with a substring search in C.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Mapping
from typing import Any, Generic, Protocol, TypeVar

SEPARATOR = "\x00"
"""Between two labels in the joined text: no label holds it, so no form found spans two labels."""


class Shown(Protocol):
    """A value as the catalogue holds it: its canonical name, and its label per language."""

    @property
    def canonical(self) -> Any: ...

    @property
    def shown(self) -> Mapping[str, str]: ...


V = TypeVar("V", bound=Shown)


class ShownLabels(Generic[V]):
    """One type's values by canonical name, and its distinct labels with the values showing them."""

    def __init__(self, values: Iterable[V]) -> None:
        self._values: dict[Any, V] = {}
        owners: dict[str, set[str]] = {}
        for value in values:
            self._values.setdefault(value.canonical, value)
            for label in value.shown.values():
                if label:
                    owners.setdefault(label, set()).add(value.canonical)
        self._labels = list(owners)
        self._owners = [frozenset(owners[label]) for label in self._labels]
        self._starts: list[int] = []
        offset = 0
        for label in self._labels:
            self._starts.append(offset)
            offset += len(label.lower()) + len(SEPARATOR)
        self._joined = SEPARATOR.join(label.lower() for label in self._labels)

    def value(self, canonical: Any) -> V | None:
        """The value named ``canonical`` (the first one, as the type lists them)."""
        try:
            return self._values.get(canonical)
        except TypeError:          # a list: no canonical name
            return None

    def holding(self, form: str, besides: Any) -> set[str]:
        """The labels of values other than ``besides`` that hold ``form`` (any case) and are more
        than it."""
        lowered = form.lower()
        found: set[str] = set()
        at = self._joined.find(lowered)
        while at >= 0 and lowered:
            index = bisect_right(self._starts, at) - 1
            label = self._labels[index]
            if label.lower() != lowered and any(owner != besides for owner in self._owners[index]):
                found.add(label)
            at = self._joined.find(lowered, at + 1)
        return found
