"""A hold's ways out as parts: the supervisor's void among them offered only while the table takes it.

A hold's prompt (the dealer's screen), what clears it (the page, the pit, the log, the journal's
hold records) and a reason that names its ways out (the screen's hold line) are each made of a
lead (why the table holds, who acts) and its ways in order (:class:`Ways`). They become words in
one place (:meth:`Ways.words`): once the round's void is refused (its ``why_not_void``: the
settlement paid or collected, the stub count after the round) the void is no way out, so no text
tells the supervisor to do what the table refuses; a hold whose only way out is the void says
it is refused, and why.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Way", "Ways", "void", "reason_ways", "MISDEAL", "OR_VOID", "SUPERVISOR_VOID"]


@dataclass(frozen=True, slots=True)
class Way:
    """One way out of a hold: its words, and the words that join it to the ways before it."""

    words: str
    joined: str = ""
    void: bool = False
    """The supervisor's void (or a misdeal): a way out only while the table takes it."""


def void(joined: str, words: str = "void") -> Way:
    """The supervisor's void, as ``words`` say it, joined to the ways before it by ``joined``."""
    return Way(words, joined, void=True)


MISDEAL = void(", ", "void declares a misdeal")
"""The void of cards that wait (or a broken count): a misdeal."""
OR_VOID = void(", or ")
SUPERVISOR_VOID = void("; or supervisor key on: ")
"""The void after a way that needs no one (a hold that ends by itself)."""


@dataclass(frozen=True, slots=True)
class Ways:
    """Words naming the ways out of a hold: ``lead`` (why the table holds, who acts; a reason that
    names no way out is its lead alone), then ``ways`` in order."""

    lead: str
    ways: tuple[Way, ...] = ()

    def offered(self, void_refused: str | None = None) -> tuple[Way, ...]:
        """The ways out the table takes: the void only when it is not refused (``void_refused``,
        the round's ``why_not_void``; None: every way)."""
        if void_refused is None:
            return self.ways
        return tuple(way for way in self.ways if not way.void)

    def words(self, void_refused: str | None = None) -> str:
        """In words, with the ways the table takes (:meth:`offered`); the void its only way and
        refused: it says so, and why."""
        ways = self.offered(void_refused)
        if not ways and self.ways:
            return f"{self.lead}void refused: {void_refused}"
        return self.lead + "".join(way.joined + way.words for way in ways)


def reason_ways(reason: str | Ways) -> Ways:
    """A hold's reason as parts (a reason in words names no way out: its lead alone)."""
    return Ways(reason) if isinstance(reason, str) else reason
