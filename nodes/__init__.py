"""Graph nodes, one module per node. Each exposes ``make_node(services)`` returning a function
``(state, runtime) -> partial state update`` that never mutates the state it is given."""

import time
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def stopwatch() -> Iterator[list[float]]:
    """Yields a one-element list that holds the elapsed milliseconds once the block exits."""
    box = [0.0]
    start = time.perf_counter()
    try:
        yield box
    finally:
        box[0] = round((time.perf_counter() - start) * 1000, 2)
