"""Two entries of one name that state different values.

A manual documents a name in more than one place: the server setting ``synchronous_commit``
(default ``on``) and CREATE SUBSCRIPTION's option of the same name (default ``off``); the
storage parameter ``fillfactor`` of CREATE TABLE (100) and of CREATE INDEX (90 for B-trees). When
the question does not say which it means, the answer shows each entry's value with its page and
says it is unsure (:attr:`core.tuning.Tuning.rival_support`), instead of one of them at full
confidence.
"""

from __future__ import annotations

from typing import Sequence

from deciders.answer_support import Candidate


def _line(text: str) -> str:
    return " ".join(text.lower().split())


def rival_entry(best: Candidate, ranked: Sequence[Candidate]) -> Candidate | None:
    """The best-ranked candidate under the same entry line as ``best`` (its context, such as
    "synchronous_commit (enum)") but on another page, holding a value ``best`` does not.

    Args:
        best: the answer's sentence, with its spans of the expected type.
        ranked: every candidate, best first (:func:`deciders.answer_support.rank_candidates`).

    Returns:
        That candidate; ``None`` when ``best`` is under no entry or holds no span, or no other
        page's entry of the name states another value.
    """
    if not (best.context and best.spans):
        return None
    held = {_line(span) for span in best.spans}
    return next(
        (
            c
            for c in ranked
            if c.spans
            and c.context
            and _line(c.context) == _line(best.context)
            and c.chunk["source"] != best.chunk["source"]
            and _line(c.spans[0]) not in held
        ),
        None,
    )
