"""A thread-safe LRU cache that computes each missing key once, however many threads ask."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

_T = TypeVar("_T")


class SingleFlightCache:
    """An LRU cache of ``size`` entries; a missing key is computed by one caller while the
    others asking for it wait for that result."""


    def __init__(self, size: int) -> None:
        self._size = size
        self._values: OrderedDict[str, Any] = OrderedDict()
        self._pending: dict[str, threading.Event] = {}
        self._lock = threading.Lock()

    def get(self, key: str, compute: Callable[[], _T]) -> _T:
        """The cached value for ``key``, computing it (once) when absent."""
        while True:
            with self._lock:
                if key in self._values:
                    self._values.move_to_end(key)
                    value: _T = self._values[key]
                    return value
                waiting = self._pending.get(key)
                if waiting is None:
                    self._pending[key] = threading.Event()
                    break
            waiting.wait()
        try:
            value = compute()
            with self._lock:
                self._values[key] = value
                while len(self._values) > self._size:
                    self._values.popitem(last=False)
            return value
        finally:
            with self._lock:
                self._pending.pop(key).set()

    def clear(self) -> None:
        """Forget every cached value."""
        with self._lock:
            self._values.clear()


