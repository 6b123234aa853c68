"""Who is signed in at the table: the dealer, the next dealer and the supervisor, from the panel's
sign-ins checked against the table's roster (:class:`~controller.configuration.Roster`).

A PIN entry or badge read is checked (:meth:`SignIns.check`) before it is journaled, and only the
result is (:class:`~controller.table.events.SignIn`: who, how, whether it matched): a replay of
the journal gives the same sign-ins and lockouts without the PIN. Every sign-in, refusal, lockout
and sign-off is journaled beside it (``SignedIn``, ``SignInRefused``, ``SignInLocked``,
``SignInUnlocked``, ``SignedOff``, ``SignOffRefused``), by roster id, never with a PIN, hash or
badge id.

The rules (docs/dealer-guide.md, "Signing in"):

- With a roster, "no more bets" is refused until a dealer is signed in, and the round's dealer is
  the one signed in when it was taken (the round record's ``dealer_id``).
- A dealer who signs in while no round is dealt (closed, betting) replaces the dealer at once;
  one who signs in after "no more bets" deals from the next round: the round in play keeps its
  dealer to its end, even when its dealer signs off meanwhile.
- A supervisor signed in authorizes the supervisor's acts (with the key, as always) until they
  sign off (with the key on: a sign-off carries no credential), the key is turned off, the
  panel's link goes down, the journal could not be written, or the controller restarts
  (authority never outlives its evidence); the dealer stays signed in across all of those. The
  dealer (or the next dealer) signs themselves off.
- ``lockout.attempts`` wrong PINs in a row for one id lock it out for ``lockout.minutes``, by the
  sign-in events' own times (the journaled clock, so a replay locks out alike); a PIN sign-in to
  a locked id is refused without checking the PIN. The way out: the id's badge still signs it in,
  and a supervisor signing in ends every lockout (``SignInUnlocked``; wrong PINs counted toward
  one stay counted).
- After a PIN checked at a panel (scrypt, right or wrong), that panel's PIN entries are refused
  unchecked for a back-off, journaled as refused too soon: :data:`BACK_OFF_S` after a matching
  one, and after a wrong one (or an id not on the roster) :data:`BACK_OFF_S` doubling with the
  panel's level (one step up per wrong PIN, at most :data:`MAX_BACK_OFF_S`). The level drops one
  step per quiet minute (:data:`DECAY_S`), never on a matching PIN (an insider's own PIN between
  guesses kept it at 2 s). A PIN check (up to about a second) runs on the controller thread:
  without the back-off a storm of PIN entries held every other event behind it (40 entries: the
  last one journaled 13 s later; 20 alternating right PINs: 8 s; found from outside on 2026-12-06). By the events' own times too, and
  decided again from the journaled sign-ins alone, so a replay refuses alike and never runs scrypt.
  A PIN entry of someone signed in already is refused unchecked alike (a storm of the right PIN).
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import time
from collections.abc import Callable
from typing import Any

from controller.configuration import Person, Roster, pin_matches
from controller.configuration._roster import dearest_cost, hash_pin
from controller.table._round_state import Audit
from controller.table.events import SignIn
from drivers.panel import BadgeRead, PinEntered, SignOff

__all__ = ["SignIns"]

log = logging.getLogger("tablectl.table")

MAX_TRACKED = 1000
"""The most ids whose wrong PINs are counted at once (the oldest are forgotten first)."""
BACK_OFF_S = 2.0
"""How long a panel's PIN entries are refused unchecked after a wrong PIN there: longer than the
dearest check a roster may name takes (1.25 s measured), so a storm costs one check per back-off."""
DECAY_S = 60.0
"""A panel's back-off level (wrong PINs there) drops one step per this many quiet seconds after its
back-off ends; a matching PIN does not lower it."""
MAX_BACK_OFF_S = 60.0
"""The longest back-off (after 6 wrong PINs in a row at one panel)."""
TOO_SOON = "too soon after the last PIN at this panel"
"""The reason journaled for a PIN entry refused unchecked during a panel's back-off."""
ALREADY = "already signed in"
"""The reason journaled for a PIN entry, refused unchecked, of someone signed in already."""


@functools.cache
def _dummy_hash(n: int, p: int) -> str:
    """Checked against for an id not on the roster, at the roster's dearest cost (n, p), so a wrong
    id takes as long as a wrong PIN of anyone on it."""
    return hash_pin("00000000", n=n, p=p, salt=b"\0" * 16)


def _clean(text: str) -> str:
    """An id as entered, safe to journal and show: printable, at most 32 characters."""
    return "".join(c for c in text if c.isprintable())[:32]


def _clock(at: float) -> str:
    """``at`` as the dealer reads it on the panel: the table's local time of day."""
    return time.strftime("%H:%M:%S", time.localtime(at))


def _utc(at: float) -> str:
    """``at`` as the journal keeps it: UTC, so a record reads the same in every time zone."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))


class SignIns:
    """The sign-ins at one table, by ``roster`` (None: nobody signs in, the key alone
    authorizes); journaled with ``audit``, shown to the dealer with ``show``."""

    def __init__(self, roster: Roster | None, audit: Audit, show: Callable[[str], None]) -> None:
        self.roster = roster
        self.audit = audit
        self.show = show
        self.dealer: Person | None = None
        """The dealer signed in now."""
        self.next_dealer: Person | None = None
        """A dealer who signed in while a round was dealt: deals from the next round."""
        self.supervisor: Person | None = None
        """The supervisor signed in now (authorizes acts, with the key)."""
        self.round_dealers: dict[int, str] = {}
        """The dealer of each recent round, by round number (fixed at "no more bets")."""
        self._failures: dict[str, tuple[int, float]] = {}
        """Wrong PINs in a row, and until when the id is locked out (0: not), by id."""
        self._panels: dict[str, tuple[int, float]] = {}
        """Wrong PINs in a row at a panel, and until when its PIN entries are refused unchecked,
        by the panel's device name."""
        self.dealing = False
        """The round in play is past "no more bets" (a dealer signing in now deals the next one)."""
        self.dearest = dearest_cost(roster.people) if roster is not None else (0, 0)
        """The scrypt N and p of the roster's dearest PIN hash: what an id not on it is checked at."""

    @property
    def required(self) -> bool:
        """Whether the table signs people in (a roster is configured)."""
        return self.roster is not None

    # --- checking an entry (before it is journaled) --------------------------------------------

    def locked_until(self, person: str, at: float) -> float | None:
        """Until when ``person`` is locked out at ``at`` (None: not locked out)."""
        until = self._failures.get(person, (0, 0.0))[1]
        return until if at < until else None

    def backed_off_until(self, device: str, at: float) -> float | None:
        """Until when the panel ``device`` refuses PIN entries unchecked at ``at`` (None: it takes them)."""
        until = self._panels.get(device, (0, 0.0))[1]
        return until if at < until else None

    def signed_in_now(self, person: str) -> bool:
        """Whether ``person`` (a roster id; "" is nobody) is signed in now, in any role."""
        signed = (self.dealer, self.next_dealer, self.supervisor)
        return bool(person) and any(who is not None and who.id == person for who in signed)

    def check(self, event: PinEntered | BadgeRead) -> SignIn:
        """``event`` checked against the roster: what is journaled instead of it."""
        common: dict[str, Any] = {"device": event.device, "at": event.at, "event_no": event.event_no}
        roster = self.roster
        if isinstance(event, BadgeRead):
            holder = roster.by_badge(event.badge) if roster is not None else None
            return SignIn(**common, person=holder.id if holder else "", method="badge", verified=holder is not None)
        if roster is None:
            return SignIn(**common, person="", method="pin", verified=False)
        # An id not on the roster is journaled as unknown, never as keyed: it may be a PIN typed
        # into the id field (found from outside on 2026-12-06), or any text at all. One on it is
        # journaled as the roster writes it (keyed in either letter case).
        entry = roster.find(_clean(event.person))
        person = entry.id if entry is not None else ""
        if self.backed_off_until(event.device, event.at) is not None or self.signed_in_now(person):
            return SignIn(**common, person=person, method="pin", verified=False)  # refused without scrypt
        if self.locked_until(person, event.at) is not None:
            return SignIn(**common, person=person, method="pin", verified=False)
        pin_hash = entry.pin_hash if entry is not None and entry.pin_hash is not None else None
        try:
            matched = pin_matches(event.pin, pin_hash or _dummy_hash(*self.dearest)) and pin_hash is not None
        except (ValueError, MemoryError) as exc:  # the roster's load checks every hash: not expected
            log.error("sign-in: the PIN hash of %s on the roster cannot be checked (%s): refused", person, exc)
            matched = False
        return SignIn(**common, person=person, method="pin", verified=matched)

    def checked_sign_off(self, event: SignOff) -> SignOff:
        """``event`` as journaled: its id as the roster writes it (matched as a sign-in's, letter
        case ignored), or "" (unknown) when not on the roster: an id field may hold a PIN keyed
        there by mistake, never journaled (found from outside on 2026-12-06). Without a roster
        the event is journaled as it came (nobody signs in or off there)."""
        if self.roster is None:
            return event
        found = self.roster.find(_clean(event.person))
        person = found.id if found is not None else ""
        return event if person == event.person else dataclasses.replace(event, person=person)

    # --- the journaled events ------------------------------------------------------------------

    def signed_in(self, e: SignIn, round_no: int) -> None:
        """A checked sign-in, in round ``round_no``."""
        roster = self.roster
        if roster is None:
            self._refuse(e, "this table has no roster: nobody signs in here")
            return
        if e.method == "pin":
            backed_off = self.backed_off_until(e.device, e.at)
            if backed_off is not None:  # decided from the journaled sign-ins alone: a replay alike
                self.audit("SignInRefused", {"person": e.person, "method": e.method, "reason": TOO_SOON})
                self.show(f"sign-in refused: {TOO_SOON}: try again after {_clock(backed_off)}")
                return
            if self.signed_in_now(e.person):  # a PIN keyed again and again costs no check either
                self.audit("SignInRefused", {"person": e.person, "method": e.method, "reason": ALREADY})
                self.show(f"sign-in refused: {e.person} is {ALREADY}")
                return
        until = self.locked_until(e.person, e.at)
        if until is not None and e.method == "pin":  # a badge is not a guess: it still signs its holder in
            why = "after wrong PINs"
            self.audit(
                "SignInRefused",
                {"person": e.person, "method": e.method, "reason": f"locked out until {_utc(until)} {why}"},
            )
            self.show(f"sign-in refused: locked out until {_clock(until)} {why}")
            return
        person = roster.people.get(e.person) if e.verified else None
        if person is None:
            self._wrong(e, roster)
            return
        self._failures.pop(person.id, None)
        if e.method == "pin":  # a match is checked too: the panel's gap, its level kept (see _checked_at)
            self._checked_at(e.device, e.at, wrong=False)
        if person.supervisor:
            self.supervisor = person
            data: dict[str, Any] = {"round": round_no, "person": person.id, "role": "supervisor", "method": e.method}
            self.audit("SignedIn", {**data, "lockout_ended": True} if until is not None else data)
            self.show(f"supervisor {person.name} signed in")
            self._end_lockouts(person, e.at)
            return
        if self.dealing and self.dealer is not None and self.dealer.id != person.id:
            self.next_dealer = person
            data = {"round": round_no, "person": person.id, "role": "dealer", "method": e.method}
            data["from_round"] = round_no + 1
            if until is not None:
                data["lockout_ended"] = True
            self.audit("SignedIn", data)
            self.show(f"{person.name} signed in: deals from round {round_no + 1}")
            return
        before = self.dealer
        self.dealer, self.next_dealer = person, None
        data = {"round": round_no, "person": person.id, "role": "dealer", "method": e.method}
        if before is not None and before.id != person.id:
            data["replaces"] = before.id
        if until is not None:
            data["lockout_ended"] = True
        self.audit("SignedIn", data)
        self.show(f"dealer {person.name} signed in")

    def _end_lockouts(self, supervisor: Person, at: float) -> None:
        """A supervisor signed in: every id locked out for wrong PINs may sign in again (the way
        out when wrong PINs at the panel locked people out), journaled with who ended them."""
        locked = sorted(k for k in self._failures if self.locked_until(k, at) is not None)
        for person in locked:  # lockouts only: the wrong PINs counted toward one stay counted
            del self._failures[person]
        if locked:
            self.audit("SignInUnlocked", {"people": locked, "by": supervisor.id})
            self.show(f"lockouts ended by {supervisor.name}: {', '.join(locked)}")

    def _refuse(self, e: SignIn, why: str) -> None:
        self.audit("SignInRefused", {"person": e.person, "method": e.method, "reason": why})
        self.show(f"sign-in refused: {why}")

    def _wrong(self, e: SignIn, roster: Roster) -> None:
        if e.method == "badge":
            self._refuse(e, "badge not on the roster")
            return
        self._back_off(e.device, e.at)
        if not e.person:  # an id not on the roster: no one's PIN to count
            self._refuse(e, "wrong PIN or id")
            return
        count = self._failures.pop(e.person, (0, 0.0))[0] + 1
        while len(self._failures) >= MAX_TRACKED:
            del self._failures[next(iter(self._failures))]
        if count >= roster.lockout_attempts:
            until = e.at + roster.lockout_s
            self._failures[e.person] = (0, until)
            self.audit(
                "SignInRefused", {"person": e.person, "method": e.method, "reason": "wrong PIN or id", "attempt": count}
            )
            self.audit("SignInLocked", {"person": e.person, "attempts": count, "until": until})
            self.show(f"sign-in refused: {count} wrong PINs: {e.person} locked out until {_clock(until)}")
            return
        self._failures[e.person] = (count, 0.0)
        self.audit(
            "SignInRefused", {"person": e.person, "method": e.method, "reason": "wrong PIN or id", "attempt": count}
        )
        self.show(f"sign-in refused: wrong PIN or id ({count} of {roster.lockout_attempts})")

    def _back_off(self, device: str, at: float) -> None:
        """A wrong PIN at the panel ``device`` at ``at``: its PIN entries are refused unchecked for a while."""
        self._checked_at(device, at, wrong=True)

    def _checked_at(self, device: str, at: float, *, wrong: bool) -> None:
        """A PIN entry checked (scrypt) at the panel ``device`` at ``at``: its next entries are
        refused unchecked for :data:`BACK_OFF_S` at least (a storm of right PINs, two dealers
        alternating, costs one check per gap too), and after a ``wrong`` one for a back-off
        doubling with the panel's level. The level drops one step per quiet minute
        (:data:`DECAY_S`) after the back-off ends, never on a matching PIN: an insider's own PIN
        between guesses does not keep the back-off short (found from outside on 2026-12-06)."""
        level, until = self._panels.pop(device, (0, 0.0))
        level = max(0, level - int(max(0.0, at - until) // DECAY_S))
        while len(self._panels) >= MAX_TRACKED:
            del self._panels[next(iter(self._panels))]
        if wrong:
            level += 1
            gap = min(BACK_OFF_S * 2 ** min(level - 1, 16), MAX_BACK_OFF_S)
        else:
            gap = BACK_OFF_S
        self._panels[device] = (level, at + gap)

    def signed_off(self, e: SignOff, round_no: int, key_on: bool) -> None:
        """``e.person`` signs off at the panel: the dealer (or the next dealer) signs themselves off
        (whoever stands at the panel is at the dealer's place); the supervisor signs off only with
        the key on (``key_on``: their own evidence; turning it off signs them off too). Any other
        sign-off is refused (a supervisor's journaled): the event carries no credential."""
        found = self.roster.find(_clean(e.person)) if self.roster is not None else None
        person = found.id if found is not None else ""
        for role in ("dealer", "next_dealer"):
            who: Person | None = getattr(self, role)
            if who is not None and who.id == person:
                setattr(self, role, None)
                self.audit("SignedOff", {"round": round_no, "person": person, "role": "dealer"})
                self.show(f"{who.name} signed off")
                return
        supervisor = self.supervisor
        if supervisor is not None and supervisor.id == person:
            if not key_on:
                why = "the supervisor signs off with the key on, or by turning it off"
                self.audit("SignOffRefused", {"round": round_no, "person": person, "role": "supervisor", "reason": why})
                self.show(f"sign-off refused: {why}")
                return
            self.supervisor = None
            self.audit("SignedOff", {"round": round_no, "person": person, "role": "supervisor"})
            self.show(f"{supervisor.name} signed off")
            return
        self.show(
            f"sign-off: {person if self.roster is not None and person in self.roster.people else 'that id'} is not signed in"
        )

    def supervisor_gone(self, why: str) -> None:
        """The key went off, or the panel's link went down (or the controller restarted): the
        supervisor signed in must sign in again."""
        who = self.supervisor
        if who is None:
            return
        self.supervisor = None
        self.audit("SignedOff", {"person": who.id, "role": "supervisor", "reason": why})

    # --- rounds ----------------------------------------------------------------------------------

    def round_opened(self) -> None:
        """A round opened: a dealer waiting for it takes over."""
        self.dealing = False
        if self.next_dealer is not None:
            self.dealer, self.next_dealer = self.next_dealer, None

    def no_dealer(self) -> bool:
        """With a roster, no dealer is signed in (then "no more bets" is refused, shown)."""
        if self.roster is None or self.dealer is not None:
            return False
        self.show("no more bets refused: no dealer signed in: sign in at the panel")
        return True

    def bets_closed(self, round_no: int) -> None:
        """ "No more bets" was taken: the dealer signed in now deals round ``round_no``."""
        self.dealing = True
        if self.dealer is not None:
            self.round_dealers[round_no] = self.dealer.id
            for old in [n for n in self.round_dealers if n < round_no - 20]:
                del self.round_dealers[old]

    def dealer_of(self, round_no: int) -> str | None:
        """Who dealt round ``round_no`` (None: no roster, or nobody was signed in)."""
        if self.roster is None:
            return None
        dealt = self.round_dealers.get(round_no)
        return dealt if dealt is not None else (self.dealer.id if self.dealer is not None else None)

    # --- across a restart ------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """What the table carries to its next round (with a roster): the dealers and lockouts,
        and the supervisor signed in when the round starts (only so that a replay of the round
        after a restart does the acts they did; they sign in again after it, with the key)."""
        out: dict[str, Any] = {
            "dealer": self.dealer.id if self.dealer else None,
            "next_dealer": self.next_dealer.id if self.next_dealer else None,
            "lockouts": {k: [n, until] for k, (n, until) in self._failures.items()},
        }
        if self._panels:  # older snapshots, and no wrong PIN at any panel: none
            out["panels"] = {k: [n, until] for k, (n, until) in self._panels.items()}
        if self.supervisor is not None:  # older snapshots, and none signed in: no key
            out["supervisor"] = self.supervisor.id
        return out

    def restore(self, state: dict[str, Any]) -> None:
        """Start from a snapshot (people no longer on the roster are not signed in)."""
        roster = self.roster
        if roster is None:
            return
        self.dealer = roster.people.get(str(state.get("dealer"))) if state.get("dealer") else None
        self.next_dealer = roster.people.get(str(state.get("next_dealer"))) if state.get("next_dealer") else None
        # for the replay of the open round only: signed off with the key once it is over
        self.supervisor = roster.people.get(str(state.get("supervisor"))) if state.get("supervisor") else None
        for key, into in (("lockouts", self._failures), ("panels", self._panels)):
            saved = state.get(key, {})
            if isinstance(saved, dict):
                for k, v in saved.items():
                    if isinstance(v, list) and len(v) == 2:
                        into[str(k)] = (int(v[0]), float(v[1]))
