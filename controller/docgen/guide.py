"""docs/dealer-guide.md, generated: each game's round played through its machine, with the screen
the dealer sees before every action, then the supervisor's actions, the holds and the hidden-card
entry. ``python -m controller.docgen.guide > docs/dealer-guide.md`` writes it; a test checks that the
file is what the machines give today.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from controller.configuration import Person, Roster, TableConfig, config_dir, hash_pin, load_table
from controller.game.registry import definition, table_names
from controller.table.devices import RecordingDevices
from controller.table.events import OpenTable
from controller.table.game_tables import GAME_TABLES
from controller.vocab import deck
from drivers.bet_spots import SpotReport
from drivers.panel import BadgeRead, ButtonChanged, PinEntered
from drivers.shoe import CardDealt, ShoeStatus

__all__ = ["mississippi_round", "boston5_round", "pai_gow_round"]


@dataclass(frozen=True, slots=True)
class Act:
    """One thing done at the table: by a player (bets, shown as text) or the dealer (a screen first)."""

    what: str
    events: tuple[object, ...]
    dealer: bool = True


def spot(seat: int, name: str, cents: int, what: str = "") -> Act:
    return Act(
        what or f"seat {seat} bets {name} {cents / 100:.2f}",
        (SpotReport(device="spots", seat=seat, spot=name, cents=cents),),
        dealer=False,
    )


def press(*buttons: str, what: str = "") -> Act:
    events = tuple(ButtonChanged(device="panel", button=b, pressed=True) for b in buttons)
    return Act(what or "press " + ", ".join(f"`{b}`" for b in buttons), events)


def deal(cards: Sequence[str], first: int = 1, what: str = "") -> Act:
    events = tuple(CardDealt(device="shoe", card=c, index=i, quality=100) for i, c in enumerate(cards, first))
    return Act(what or f"deal {len(cards)} cards from the shoe", events)


def mississippi_round() -> list[Act]:
    """Mississippi Stud's scripted round (named by its definition)."""
    return [
        spot(1, "ante", 500),
        spot(1, "bonus", 100),
        spot(4, "ante", 1000),
        press("no_more_bets"),
        deal("As Ad Kc Qd 7h 7c 2c".split(), what="deal: two cards to each seat, then three community cards"),
        spot(1, "third", 500),
        press("seat_4", "fold", what="seat 4 folds: press `seat_4`, `fold`"),
        press("confirm", what="collect seat 4's ante, then press `confirm`"),
        press("reveal"),
        spot(1, "fourth", 1000),
        press("reveal"),
        spot(1, "fifth", 1500),
        press("reveal"),
    ]


def boston5_round() -> list[Act]:
    """Boston 5's scripted round (named by its definition)."""
    return [
        spot(1, "ante", 500),
        spot(1, "first", 1000),
        spot(2, "ante", 500),
        spot(2, "first", 1000),
        spot(2, "bonus", 500),
        press("no_more_bets"),
        deal("As Ks Qs 8h 8d 9c 3c 4d 5h".split(), what="deal: three cards to each seat, then three to the dealer"),
        press("seat_2", what="seat 2 exposes its bonus hand: press `seat_2`"),
        press("next"),
        press("confirm", what="pay seat 2's bonus, then press `confirm`"),
        spot(1, "second", 1000),
        press("seat_2", "fold", what="seat 2 folds: press `seat_2`, `fold`"),
        press(
            "confirm",
            what="collect seat 2's ante and first wager, its cards unexposed to the discard rack; `confirm`",
        ),
        press("deal"),
        deal("Js Ts 6h 6c".split(), 10, what="deal the final two cards to seat 1, then two to the dealer"),
    ]


def pai_gow_round() -> list[Act]:
    """Pai gow's scripted round (named by its definition)."""
    cards = list(deck(joker=True))
    random.Random(3).shuffle(cards)
    return [
        spot(2, "pai_gow", 1000),
        spot(2, "bonus", 500),
        spot(2, "envy_marker", 1, "the dealer puts an envy marker in front of seat 2's $5.00 bonus"),
        spot(5, "pai_gow", 2500),
        press("no_more_bets"),
        press(
            "seat_2",
            "seat_3",
            "seat_3",
            what="enter the dice, one die at a time: `seat_2`, `seat_3`, `seat_3` (2 + 3 + 3 = 8)",
        ),
        press("confirm"),
        deal([str(c) for c in cards[:49]], what="deal seven hands of seven"),
        Act("the shoe counts the cards left", (ShoeStatus(device="shoe", stub_count=4, deck_size=53),)),
        press(
            "confirm",
            what="the players set their hands and place them face down (the dealer's cards stay face down): "
            "when all are set, `confirm`",
        ),
        press("confirm", what="expose the dealer's hand and set it the house way shown (11.9): `confirm`"),
        press(
            "confirm",
            what="turn seat 5's hand, the first counterclockwise from the dealer's right: set the house way, `confirm`",
        ),
        press("confirm", what="settle seat 5's pai gow wager at once, then `confirm`"),
        press("next", what="turn seat 2's hand: `next` shows another legal set"),
        press("confirm"),
        press("confirm", what="settle seat 2's pai gow wager, then `confirm`"),
    ]


def _boxed(lines: Sequence[str], width: int) -> list[str]:
    edge = "+" + "-" * width + "+"
    return ["```", edge, *(f"|{line.ljust(width)}|" for line in lines), edge, "```"]


def _round(game: str, table: TableConfig) -> list[str]:
    game_def = definition(game)
    cls, script, title = game_def.machine(), game_def.guide(), game_def.guide_title
    m = cls(table, RecordingDevices())
    m.handle(OpenTable())
    out = [
        f"## {title}",
        "",
        f"Table `{table.name}`, a display of {m.display.size.lines} x {m.display.size.columns}.",
        "",
    ]
    number = 0
    players: list[str] = []
    acts = script()
    while True:
        for act in acts:
            if not act.dealer:
                players.append(act.what)
                for e in act.events:
                    m.handle(e)
                continue
            number += 1
            if players:
                out += [f"Players: {'; '.join(players)}.", ""]
                players = []
            out += [f"**{number}. {act.what}** ({m.phase.value.replace('_', ' ')}); the screen before:", ""]
            out += [*_boxed(m.display.lines, m.display.size.columns), ""]
            for e in act.events:
                m.handle(e)
        if m.phase.value != "settlement":
            break
        acts = [press("confirm", what="do the step shown, then press `confirm`")]
    out += [
        "The round is complete; the next one opens for bets:",
        "",
        *_boxed(m.display.lines, m.display.size.columns),
        "",
    ]
    return out


_BUTTONS = """## The buttons

| Button | What it does |
|---|---|
| `no_more_bets` | locks the bet spots and starts the round (refused, with the reason on the screen, while a wager breaks the rules) |
| `seat_1` ... `seat_7` | selects a seat (then `fold`), or marks a Boston 5 bonus hand exposed (once exposed it stays exposed: pressed again, the supervisor's key un-exposes a wrong press, see below); pai gow dice: `seat_1` ... `seat_6` is one die's face (three presses, then `confirm`: any total in four presses) |
| `fold` | the selected seat folds; its collection is shown at once and confirmed with `confirm` |
| `reveal` | Mississippi Stud: turns the next community card once every seat has acted; Three Card Poker: exposes the dealer's hand once every seat has played or folded |
| `deal` | Boston 5: the final two cards, once every seat has a second wager or has folded |
| `confirm` | the step on the screen is done; on a notice, the next page or (on the last) read |
| `next` / `previous` | pages a long screen (the page is in the status line, e.g. `2/3`); steps the pai gow dice total by one and moves through hand sets |
| `void`, `clear_fault`, `settle` | supervisor only, with the key on (below) |

The screen: the first line is the status (round, step, `HOLD` when the table holds, the page); then
the prompt, naming the button to press; then details (community cards, who has not acted, late bets).
What must be read (a fold's collection, a void's returns, the stub count) stays until `confirm`.
Spot lamps: `attract` between rounds, `open` when chips are on a spot, `accepted` at no more bets,
`off` when a spot empties, when a fold is collected and when the round ends, `winner` on the spots
paid during settlement, each seat's as its hand is turned (a folded seat's never), flashing for a
late or removed bet.
"""

_SIGN_IN = """## Signing in

At a table whose config names a roster (`roster:`, docs/operations.md "A roster"), everyone signs in
at the panel: key in your roster id and PIN on the panel's keypad, or hold your badge to its reader.
A table without a roster signs no one in, and the supervisor's key alone authorizes.

- **Keying your id**: key it as the roster writes it (letters, digits, `.`, `_`, `-`, e.g.
  `D-0042`); letter case does not matter (`d-0042` is `D-0042`), and the journal names you as the
  roster writes you. A panel whose keypad has digits only cannot key letters or `-`: at such a
  table the roster gives ids of digits only (e.g. `0042`), or you sign in by badge.
- **The dealer** must be signed in for `no_more_bets`: without one the panel says `no more bets
  refused: no dealer signed in: sign in at the panel`. Each round records the dealer signed in
  when `no_more_bets` was taken (`dealer_id` in `tablectl recall --json`).
- **Relieving a dealer**: the new dealer signs in. Between rounds and while bets are open, they
  take over at once (the journal says whom they replaced). After `no_more_bets` the round in play
  keeps its dealer to its end, and the new dealer deals from the next round (`... signed in: deals
  from round N`). A dealer who signs off mid-round still dealt that round; the next round's
  `no_more_bets` then waits for a dealer to sign in.
- **The supervisor** signs in (PIN or badge) besides turning the key: every supervisor act below
  needs both, and is journaled with who authorized it; without a signed-in supervisor an act is
  refused (`void refused: a supervisor must sign in at the panel`) as it is without the key. The
  supervisor stays signed in until they sign off, turn the key off, the panel's link goes down,
  the journal cannot be written for a while, or the controller restarts; the dealer stays signed
  in across all of those.
- **Wrong PINs**: after a PIN is checked the panel refuses PIN entries for a moment (`sign-in refused:
  too soon after the last PIN at this panel: try again after HH:MM:SS`): 2 seconds after a right
  one; after a wrong one 2 seconds, doubling with each further wrong PIN there, at most a minute,
  and back down one step per quiet minute (a right PIN does not end it). Badges are read at once. Keying your PIN again while signed in is refused too (`already signed in`). After the roster's `lockout.attempts` wrong PINs in a row (5 by default) that
  id is locked out for `lockout.minutes` (5 by default), even with the right PIN; each wrong PIN,
  each refusal and the lockout are journaled.
- **Locked out?** Your badge still signs you in (a lockout stops PIN guesses, not badges), and
  ends your lockout. A supervisor who signs in (by badge, or by PIN when their own id is not
  locked out) ends every lockout at the table (`lockouts ended by ...`, journaled), and the locked
  out sign in again. Without a badge or a supervisor, the lockout ends after `lockout.minutes`.
- **Signing off**: sign off at the panel when you leave the table, with your id. The dealer signs
  themselves off (and a dealer waiting for the next round); the supervisor signs off with the
  key on, or by turning the key off. A sign-off of the supervisor with the key off is refused
  (`sign-off refused: ...`, journaled): a sign-off carries no PIN, so nobody else signs them off.

No PIN, PIN hash or badge id is shown, logged, journaled or sent to the floor: the journal names
people by roster id only.
"""

_SUPERVISOR = """## The supervisor's actions (key on)

| Action | Buttons | When | Journaled |
|---|---|---|---|
| Void the round | `void` | any time the round is in play or on hold, until its settlement pays or collects (a settlement step confirmed, a pai gow hand's step confirmed as it is turned: a foul or a set pressed alone moves no chips until then, a fold's collection confirmed, a Boston 5 bonus paid); never in the stub count after it | `void`, every wager returned (a notice lists them) |
| Clear a fault | `clear_fault` | on hold | `fault cleared` with the hold's reason as the screen shows it then (a `void` the table refuses then is not named) |
| Accept / refuse a late or removed bet | `next` / `previous` | while one is pending (the screen lists them) and no misread card is being entered (`next` / `previous` choose the card then: the screen says the late change waits until the card is entered); `next` accepts it only between "no more bets" and the round's first card out of the shoe (placed, or waiting for the supervisor; "no more bets" is announced before any card, 24.8(b)4, 35.9), and only if the seat's wagers then keep the game's rules (a Three Card Poker pair plus may stand alone, 20.6, inferred); once a card is out a change to a wager placed before the deal (Mississippi Stud ante or bonus, Boston 5 ante, first wager or bonus, pai gow wager, bonus or insurance, Three Card Poker ante, pair plus or 6 Card Bonus) is refused, held or not, `cannot enter a round already dealt: ...` naming what the cards decide of it; at the stub count after a void, `cannot enter a round already void: every wager returned`; a street, second or play wager is never a late change to accept | `late bet accepted` / `late bet refused` |
| Enter a misread card | `next` / `previous`, `confirm` | on hold for an unreadable or duplicate card | `card corrected`, named by position |
| Un-expose a Boston 5 bonus hand (a wrong press) | the exposed seat's `seat_N` | while the bonus hands are exposed (step `bonus`, not held): the cards of a hand once exposed were seen, so without the key the press is refused (`un-expose bonus hand refused`, journaled); held, or from the bonus settlement on, no press changes what is exposed (24.10(a)) | `bonus hand not exposed`: its bonus is then collected as not exposed; the dealer may mark it exposed again |
| Communication violation (35.10(c)) | `seat_N`, `settle` | Mississippi Stud, before the third community card is revealed | `communication violation`: every wager of the seat forfeit (the street's bet too, if placed), collected at once; a folded seat's bonus still in play too; the round record carries `communication_violation: true` |

## Holds and what clears them

| The screen says (why: ...) | What clears it |
|---|---|
| `link down: <device>` | the device comes back by itself (the round resumes); or the supervisor voids; a round that opens while a device is down holds at once |
| `never connected: <device>: <why>` | a device missing since the controller started (its port would not open, or it does not answer): the hold ends by itself once it is up and read; `no_more_bets` is not taken while a device has not connected; or the supervisor voids |
| `shoe jammed: clear the jam` | clear the jam: the hold ends by itself once the shoe reports ok (`clear_fault` is refused until then); or the supervisor voids |
| `shoe door open` | close the shoe's door: the hold ends by itself; or the supervisor voids |
| `N cards dealt while held: ...` | cards left the shoe during a hold: supervisor: `confirm` places them in the dealing order, `void` is a misdeal |
| `unreadable card: <position>` | the shoe reads the card again (with the key on), or the supervisor enters it, or voids |
| `duplicate card: <position>` | as for an unreadable card |
| `card N dealt before shoe card M was read again or entered: ...` | after `clear_fault` on an unreadable or duplicate card's hold (play resumed, card M still to be read again or entered), the shoe's next card waits, since the place it would take is card M's: supervisor: `next` / `previous`, `confirm` enter card M in its place, then `confirm` places the card that waited; `void` is a misdeal |
| `card N from the shoe dealt when none was expected` | supervisor: `confirm` places it in the dealing order (burned if it has no place), `void` is a misdeal (`clear_fault` is refused while it waits) |
| `card N from the shoe after the round's last card, unreadable: burned unexposed; ...` | a card after the deal is complete is no one's card (the stub's cards go to the discard rack unexposed: Boston 5 24.8(d)): it is burned and never entered; supervisor: `clear_fault` goes on, `void` is a misdeal |
| `card N from the shoe before the round's first card, unreadable: burned unexposed; ...` | a card out of the shoe while betting is open has no place in the deal yet (the seats may still change): it is burned and never entered; supervisor: `clear_fault` goes on, `void` is a misdeal |
| `stub count N, expected M` | supervisor: `clear_fault`, then the dealer recounts and presses `confirm`. M is the deck less every card that left the shoe in the round: a card burned (one out while the table held at the count, accepted by the supervisor: no place in the deal) is out of the stub, and the count asked for says one fewer |
| `misdeal check: N cards remain, not 4: does every hand have seven?` (pai gow; not 3 when a card beyond the deal was burned, and so on: the deck less every card out of the shoe) | the dealer counts each hand (31.14): supervisor: `clear_fault` when every hand has seven cards (the round goes on: not a misdeal), `void` when one has more or fewer (a misdeal) |
| `journal: disk full: N bytes free on FILESYSTEM` (or another reason the journal cannot be written) | the table's disk needs room (operations); a card dealt, bet placed or button pressed meanwhile is kept by its device and sent again once there is room; then `journal written again: each device's state is read again` ends by itself once every device is read (cards dealt meanwhile then wait for the supervisor); or supervisor: `void`. A hold only the supervisor clears (an unreadable card, a command that failed, the stub, a misdeal check, events lost) stays that hold: every device is read again, then it still needs the supervisor's way |
| `journal: ... (N events not recorded or acted on)` | supervisor: `clear_fault`, or `void` |
| `shoe card numbers jump from N to M: ...` | supervisor: `confirm` accepts the card, `void` declares a misdeal |
| `shoe card numbers repeat: ...` (a second card under one number) or `... start over at 1 ...` (mid-round, no shuffle) | as for a jump: supervisor: `confirm` accepts the card, `void` declares a misdeal. A count that starts over before the round's first card is a new deck, not a break: an unreadable card still to be entered that came out before it is of the last round's stub and is burned (`shoe card N: out before the shoe's count started over at 1: burned`); held for it, the table holds for the new deck's first card instead (`confirm` places it) |
| `cannot settle: <what>` (in words: `seat 1 violation at: ...`) | the round's record cannot be settled as `tablectl settle` settles it, so nothing is paid: supervisor: `clear_fault` settles it again (held again if it still cannot be), or `void` |

While cards wait for the supervisor the hold's prompt says `confirm accepts the cards, or void`:
`clear_fault` is refused then. Every hold, each new reason and its end is also a line in the log (a hold that ends by itself:
`hold ended by itself: ...`; one the supervisor clears: `hold cleared: ...`).
Where this table says "or the supervisor voids" (or `void`), the void is only offered while the table takes it:
once the round's settlement has paid or collected, or in the stub count after the round, the hold's prompt on the
screen and what clears it on the page and the pit leave `void` out (`wait for the device`, not `wait for the device;
or key: void`); a hold whose only way out is the void says `void refused: <why>`. The refusal of `clear_fault`
while cards wait leaves it out too (`clear fault refused: 1 card dealt while held: supervisor: confirm accepts`,
not `..., void declares a misdeal`).

### Two things at once

| At the same time | What the table does |
|---|---|
| a link down (or a device never connected) and the shoe jammed or its door open | the shoe's reason is shown; once the shoe reports ok the hold is a link hold again, and it ends by itself when every device is back |
| two devices down or never connected | the hold names them (never connected: each with why) and ends only when both are back and read |
| a device down and cards dealt meanwhile | the shoe's link alone: its cards are its reports delivered late, placed in order when it is back while a card is expected; otherwise, and for any other device: the cards wait for the supervisor (`confirm` / `void`) once every device is back: before the deal, once the deal begins; once it has begun (Boston 5's bonus, bonus settlement and second wager between its two deals, the streets, play, setting, the settlement, the stub count, also after a misdeal during the deal), at once: the hold stays until `confirm` burns them (named in the round's card record) or `void` declares a misdeal |
| a card, count or settlement fault over a link or shoe hold | the card's reason replaces the other; the supervisor decides it once every device is back |
| a shoe card number that jumps, repeats or starts over while held for a misread card | the count's hold replaces it: `confirm` accepts the cards in dealing order, `void` declares a misdeal |
| a misread card while cards that came out of the shoe before it wait for the supervisor | `confirm` accepts those first, in their places; the table then holds for the misread card, to be read again or entered in its own place |
| Mississippi Stud: a fold and a communication violation in the same street | fold first: the fold collects the ante and the streets before, the violation the bonus left; violation first: it collects every wager and the fold changes nothing; the rest of the table settles normally |
| Boston 5: a second wager withdrawn after `deal` and a card dealt before its collection is confirmed | the card waits for the supervisor; the dealer confirms the collection, the supervisor's `confirm` accepts the card, and the prompt names only the seats left |
| a device down when a round ends | the next round opens held for it |
| the journal cannot be written and events on several devices | an outage of every device at once: nothing is acted on or acknowledged; once there is room each device sends its events again and is read again; bets placed meanwhile count (their step was open) or are late bets, in the journal's order: a `no more bets` journaled before a chip closes betting for it; a button pressed meanwhile is not acted on (press it again: the screen says so until it is pressed; until then betting stays closed for chips after it); cards dealt meanwhile wait for the supervisor, who accepts them in dealing order once the deal begins (once it has begun: at once, as above) |

A hold never changes what a wager is: a chip placed in the step that asks for it (betting, a
second wager, a street bet) counts whatever hold began in that step (a link down, a jam, the door,
the journal, a restart; a bet-spot device that comes back is read again, and what is on its spots
counts as placed then, a chip left on a spot from the last round and placed again included), and a
chip placed after the press that closes its step is a late bet whatever hold is on.

## Hidden cards

Every card is dealt face down, and the dealer's display can be seen from the table, so a card not
yet revealed never appears on it, in the log or in anything published: a misread card is named by
its position (`community card 2`, `dealer card 3`, `seat 4 card 1`), never by its face. Entering a
card needs the supervisor's key. While a card is entered, the display shows the candidate by its
number in the deck below, never its face: the supervisor looks at the card, finds its number here,
and steps to it with `next` / `previous` through the whole deck in this order (none skipped: the
numbers shown tell nothing of the cards dealt), then presses `confirm`. The number is on the display
only while it is chosen: no text kept afterwards (the recent texts, the table page), log line or
record names it. A card already out of the shoe this round is not entered (`not entered: the card
chosen is out of the shoe already: check it, or void`).

At the settlement the dealer's own hand is revealed first (its step: `dealer: ...`), and no
player's hand with it: each player's cards are turned, and shown face up, at the step that settles
that seat, counterclockwise from the dealer's right (Boston 5 24.10(e), (f); Mississippi Stud
35.10(i); Three Card Poker inferred from the published rule sheets; pai gow as each hand is turned,
11.9), and stay face up until the round ends. A folded hand is never turned: collected face down.
A hold, or a restart, shows what the step held from showed: the hands turned before it, no other.
A Boston 5 bonus hand exposed stays face up (24.10(a)).

"""


def _deck_table() -> list[str]:
    cards = [str(c) for c in deck(joker=True)]
    out = ["| Suit | " + " | ".join(c[0] for c in cards[:13]) + " |", "|---" * 14 + "|"]
    for s, name in enumerate(("clubs", "diamonds", "hearts", "spades")):
        out.append(f"| {name} | " + " | ".join(str(13 * s + r + 1) for r in range(13)) + " |")
    out += ["", "The joker (pai gow) is 53.", ""]
    return out


def _sign_in_example(table: TableConfig) -> list[str]:
    people = {
        "D-0042": Person("D-0042", "Ann Lee", "dealer", hash_pin("2468", n=2**14, salt=b"dealer-guide-pin")),
        "S-0007": Person("S-0007", "Bo Diaz", "supervisor", None, ("BADGE-0007",)),
    }
    roster = Roster("roster.yaml", people, {"BADGE-0007": "S-0007"})
    m = GAME_TABLES["mississippi_stud"](replace(table, roster=roster), RecordingDevices())
    m.handle(OpenTable())
    m.handle(SpotReport(device="spots", seat=1, spot="ante", cents=500))
    m.handle(ButtonChanged(device="panel", button="no_more_bets", pressed=True))
    refused = m.display.lines
    m.handle(PinEntered(device="panel", person="D-0042", pin="2468"))
    signed = m.display.lines
    m.handle(ButtonChanged(device="panel", button="no_more_bets", pressed=True))
    m.handle(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    m.handle(ButtonChanged(device="panel", button="void", pressed=True))
    no_supervisor = m.display.lines
    m.handle(BadgeRead(device="panel", badge="BADGE-0007"))
    m.handle(ButtonChanged(device="panel", button="void", pressed=True))
    width = m.display.size.columns
    return [
        "For example, the dealer presses `no_more_bets` before signing in:",
        "",
        *_boxed(refused, width),
        "",
        "The dealer keys in id `D-0042` and the PIN:",
        "",
        *_boxed(signed, width),
        "",
        "After `no_more_bets`, the supervisor turns the key and presses `void` before signing in:",
        "",
        *_boxed(no_supervisor, width),
        "",
        "The supervisor's badge is read, and `void` pressed again:",
        "",
        *_boxed(m.display.lines, width),
        "",
    ]


def _entry_example(table: TableConfig) -> list[str]:
    m = GAME_TABLES["mississippi_stud"](table, RecordingDevices())
    m.handle(OpenTable())
    for seat, cents in ((1, 500), (4, 1000)):
        m.handle(SpotReport(device="spots", seat=seat, spot="ante", cents=cents))
    m.handle(ButtonChanged(device="panel", button="no_more_bets", pressed=True))
    for i, c in enumerate("As Ad Kc Qd 7h".split(), 1):
        m.handle(CardDealt(device="shoe", card=c, index=i, quality=100))
    m.handle(CardDealt(device="shoe", card="7h", index=6, quality=100))  # the shoe reads 7h again
    held = m.display.lines
    m.handle(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    for _ in range(2):
        m.handle(ButtonChanged(device="panel", button="next", pressed=True))
    return [
        "For example, the shoe reports the second community card as a card already dealt:",
        "",
        *_boxed(held, m.display.size.columns),
        "",
        "The supervisor turns the key and presses `next` twice:",
        "",
        *_boxed(m.display.lines, m.display.size.columns),
        "",
    ]


def dealer_guide() -> str:
    """The whole of docs/dealer-guide.md."""
    tables = {game: load_table(config_dir() / "bench" / f"{game}.yaml") for game in GAME_TABLES}
    out = [
        "# The dealer's guide",
        "",
        "Generated from the table machines (`python -m controller.docgen.guide > docs/dealer-guide.md`;",
        "`tests/test_dealer_guide.py` checks it is current): each game's round step by step, with the",
        "screen the dealer sees before each action, on the bench tables of `config/bench/`.",
        "",
        _BUTTONS,
    ]
    for game in table_names():  # each game's scripted round, named by its definition
        out += _round(game, tables[game])
    out += [_SIGN_IN, *_sign_in_example(tables["mississippi_stud"])]
    out += [_SUPERVISOR, *_deck_table(), *_entry_example(tables["mississippi_stud"])]
    return "\n".join(out).rstrip() + "\n"


if __name__ == "__main__":
    print(dealer_guide(), end="")
