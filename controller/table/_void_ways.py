"""The supervisor's void among a hold's ways out, offered only when the table would take it.

A hold's prompt (the dealer's screen), what clears it (the page, the pit, the log) and its reason
as the screen shows it name the void as one way out; once the round's void is refused (its
``why_not_void``: the settlement paid or collected, the stub count after the round) the words leave
it out, so no screen tells the supervisor to do what the table refuses.
"""

from __future__ import annotations

__all__ = ["offer_void"]

_VOID_WAYS = (
    ", void declares a misdeal",
    "; or supervisor key on: void",
    "; or key: void",
    ", void when not",
    "; or void",
    ", or void",
    " or void",
    ", void",
)
"""How the table words the supervisor's void among a hold's ways out and in its reasons
(:mod:`._holds`, :mod:`._card_intake`; longest first: one is left out whole, never in part)."""


def offer_void(words: str, refused: str | None) -> str:
    """``words`` (a hold's prompt, what clears it, or its reason as the screen shows it) offering the supervisor's void only when the
    table would take it: ``refused`` is why it would not (the round's ``why_not_void``; None: the
    words as they are). A hold whose only way out is the void says it is refused, and why."""
    if refused is None:
        return words
    for way in _VOID_WAYS:
        words = words.replace(way, "")
    if words.endswith(": void"):  # the void its only way (a misdeal): say why not
        return f"{words[: -len('void')]}void refused: {refused}"
    return words
