"""The games as the seeds state them: where each card goes, when it may be seen, and what each
wager wins or loses.

Seats are numbered from the dealer's left (seat 1 farthest to his left): "starting with the player
farthest to his or her left and continuing around the table in a clockwise manner" is ascending
seat order, and "starting with the player farthest to his or her right and continuing
counterclockwise" is descending (24.8(c), 24.10(d) and (f), 35.10(i)).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from hil.reference.paytables import RefTable, Row, pays
from hil.reference.poker import CATEGORIES, RANK_NAMES, Card, best_five, parse, three

__all__ = ["WagerOutcome", "Expected", "SeatState", "deal_destinations", "expect_round", "visible_cards"]

STREETS = ("third", "fourth", "fifth")
"""Mississippi Stud's bet wagers, one per community card (35.10(a), (e), (g))."""


@dataclass(frozen=True)
class WagerOutcome:
    """One wager's result: ``win``, ``lose`` or ``even`` (pushed or returned), and its net in cents."""

    result: str
    net: int
    why: str = ""


@dataclass(frozen=True)
class SeatState:
    """What a seat did, as the model reads it: its wagers (spot: cents), whether and where it
    folded, whether it exposed its three cards for the bonus (Boston 5), its set hands (pai gow)."""

    wagers: Mapping[str, int]
    folded_at: str | None = None
    exposed: bool = False
    high: str = ""
    low: str = ""
    violation: bool = False
    """35.10(c): the player communicated about his hand: every wager forfeit."""


@dataclass
class Expected:
    """What the model says of a round: each card's destination in deal order, each seat's
    wagers' outcomes and net, the seats in the order their hands are settled, and the seats
    whose pay the cap cut (their wagers are compared by the seat's net only)."""

    destinations: list[str] = field(default_factory=list)
    outcomes: dict[int, dict[str, WagerOutcome]] = field(default_factory=dict)
    nets: dict[int, int] = field(default_factory=dict)
    order: list[int] = field(default_factory=list)
    capped: set[int] = field(default_factory=set)
    settled: bool = True
    """False when the model does not settle this game's wagers (pai gow's side wagers)."""
    envy_order: list[int] = field(default_factory=list)
    """Pai gow: the seats settled in 11.15(d)3's last pass (an envy marker, or a bonus wager with a
    premium hand), from the dealer's right counterclockwise."""
    dealer_low: frozenset[str] | None = None
    """Pai gow: the dealer's front (two-card) hand by the house way, where the model sets it."""


def _rank_name(rank: int) -> str:
    return RANK_NAMES[rank - 2] if rank >= 2 else "JK"


def _odds(row: Row | None, stake: int, why: str) -> WagerOutcome:
    if row is None:
        return WagerOutcome("lose", -stake, why)
    if row.push:
        return WagerOutcome("even", 0, why)
    return WagerOutcome("win", stake * row.num // row.den, why)


def _pai_gow_start(table: RefTable, start: Mapping[str, Any]) -> int:
    """The position that gets the first card: count counterclockwise from the dealer (1) through
    every betting position (31.11): 0 is the dealer, else the seat number."""
    seats = int(table.settings["seats"])
    value = int(start.get("value", 1))
    ring = [0, *range(seats, 0, -1)]  # the dealer, then the seats counterclockwise (from his right)
    first: int = ring[(value - 1) % len(ring)]
    return first


def deal_destinations(
    table: RefTable, count: int, seats: Mapping[int, SeatState], start: Mapping[str, Any] | None = None
) -> list[str]:
    """Where each of the first ``count`` cards of a round goes ("extra" beyond the round's cards)."""
    game = table.game
    playing = sorted(n for n, s in seats.items() if s.wagers)
    out: list[str] = []
    if game == "mississippi_stud":  # 35.9: two to each player from the dealer's left; then three community
        for n in playing:
            out += [f"seat {n}"] * 2
        out += ["community"] * 3
    elif game == "boston5":  # 24.8(c): three to each player, three to the dealer; 24.10(d): two more each
        for n in playing:
            out += [f"seat {n}"] * 3
        out += ["dealer"] * 3
        for n in playing:
            s = seats[n]
            if s.folded_at is None and s.wagers.get("second"):
                out += [f"seat {n}"] * 2
        out += ["dealer"] * 2
    elif game == "three_card_poker":  # published rule sheets: three to each player, three to the dealer
        for n in playing:
            out += [f"seat {n}"] * 3
        out += ["dealer"] * 3
    elif game == "pai_gow":  # 31.8: one at a time, clockwise, to every position and the dealer, seven each;
        # 31.10: from an automated shoe, a stack of seven to each position and the dealer in that order
        first = _pai_gow_start(table, start or {})
        n_seats = int(table.settings["seats"])
        ring = [*range(1, n_seats + 1), 0]  # clockwise: from the dealer's left round to the dealer
        clockwise = str(table.settings.get("deal_direction", "clockwise")) == "clockwise"
        if not clockwise:
            ring = list(reversed(ring))
        i = ring.index(first)
        order = ring[i:] + ring[:i]
        names = ["dealer" if p == 0 else f"seat {p}" if p in playing else f"position {p} (no wager)" for p in order]
        if str(table.settings.get("deal_method", "one_at_a_time")) == "stacks":
            out = [name for name in names for _ in range(7)]
        else:
            out = names * 7
    else:
        raise ValueError(f"the reference model has no game {game!r}")
    return (out + ["extra"] * count)[:count]


def visible_cards(
    table: RefTable,
    cards: Sequence[str],
    seats: Mapping[int, SeatState],
    start: Mapping[str, Any] | None = None,
    hands_set: bool = True,
    turning: float | None = None,
) -> set[str]:
    """Which of a round's ``cards`` (dealt so far, in order) may be seen now, given the seats'
    wagers and decisions so far. Every other card is face down: no outward payload names it.
    ``hands_set`` (pai gow): every player has set his hands face down and the dealer has
    confirmed it; before, not even the dealer's hand is turned over (31.8, 11.9).
    ``turning`` (Boston 5, Mississippi Stud, Three Card Poker): the seat whose hand the dealer
    has reached at the showdown. He reveals his own hand (or the last community card) first, then
    turns each player's cards "starting with the player farthest to his or her right and
    continuing counterclockwise around the table" (24.10(e), (f); 35.10(i): "one player at a
    time"; Three Card Poker the same by the published rule sheets): a hand in play is face up once
    the dealer has reached its seat (``turning`` or above: seats are numbered from his left, so
    his right is the highest); ``math.inf``: none yet; ``None``: every one (the showdown is over,
    or not followed hand by hand)."""
    where = deal_destinations(table, len(cards), seats, start)
    held: dict[str, list[str]] = {}
    for card, to in zip(cards, where, strict=True):
        held.setdefault(to, []).append(card)
    playing = sorted(n for n, s in seats.items() if s.wagers)
    turned = playing if turning is None else [n for n in playing if n >= turning]
    if table.game == "mississippi_stud":
        return _visible_mississippi(held, seats, playing, turned)
    if table.game == "boston5":
        return _visible_boston5(held, seats, playing, turned)
    if table.game == "three_card_poker":
        return _visible_three_card(held, seats, playing, turned)
    if table.game == "pai_gow":
        n_seats = int(table.settings["seats"])
        # nothing is turned over before every hand has its seven and the players have set theirs
        if hands_set and len(cards) >= 7 * (n_seats + 1):
            return {c for to in ["dealer", *(f"seat {n}" for n in playing)] for c in held.get(to, [])}
    return set()


def _visible_mississippi(
    held: Mapping[str, list[str]], seats: Mapping[int, SeatState], playing: list[int], turned: list[int]
) -> set[str]:
    """Mississippi Stud's cards face up: the community cards as the streets are decided, then each
    hand in play the dealer has turned (``turned``)."""
    seen: set[str] = set()
    community = held.get("community", [])
    shown = 0
    for street in STREETS:  # 35.10(d), (f), (h): a community card after every player decided
        if shown < len(community) and all(
            seats[n].folded_at is not None or seats[n].wagers.get(street) for n in playing
        ):
            shown += 1
        else:
            break
    seen.update(community[:shown])
    if shown == 3:  # 35.10(i): each remaining player's hand is evaluated and announced, one at a time
        for n in turned:
            if seats[n].folded_at is None:
                seen.update(held.get(f"seat {n}", []))
    return seen


def _visible_boston5(
    held: Mapping[str, list[str]], seats: Mapping[int, SeatState], playing: list[int], turned: list[int]
) -> set[str]:
    """Boston 5's cards face up: an exposed bonus hand's three; at the showdown the dealer's five,
    and each hand not folded once the dealer turned it (``turned``)."""
    seen: set[str] = set()
    showdown = len(held.get("dealer", [])) == 5  # 24.10(e): the dealer reveals after the final cards
    if showdown:
        seen.update(held["dealer"])
    for n in playing:
        own = held.get(f"seat {n}", [])
        if seats[n].folded_at is not None:
            continue  # 24.10(b): a folded hand is collected without exposing the cards
        if showdown and n in turned:  # 24.10(f): turned over one by one
            seen.update(own)
        elif seats[n].exposed and seats[n].wagers.get("bonus"):
            seen.update(own[:3])  # 24.10(a): exposed to qualify for the bonus
    return seen


def _visible_three_card(
    held: Mapping[str, list[str]], seats: Mapping[int, SeatState], playing: list[int], turned: list[int]
) -> set[str]:
    """Three Card Poker's cards face up: nothing until every player played or folded; then the
    dealer's three and each hand still in play the dealer turned (``turned``; a folded hand is
    collected face down)."""
    dealer = held.get("dealer", [])
    decided = all(
        seats[n].folded_at is not None or seats[n].wagers.get("play") for n in playing if seats[n].wagers.get("ante")
    )
    if len(dealer) != 3 or not decided:
        return set()
    seen = set(dealer)
    for n in turned:
        if seats[n].folded_at is None:
            seen.update(held.get(f"seat {n}", []))
    return seen


def _three_card_value(cards: list[Card]) -> tuple[int, tuple[int, ...]]:
    """A Three Card Poker hand, comparable: straight flush, three of a kind, straight, flush,
    pair, high card (published rule sheets); A-2-3 the lowest straight, K-A-2 no straight."""
    ranks = sorted((r for r, _ in cards), reverse=True)
    flush = len({s for _, s in cards}) == 1
    wheel = ranks == [14, 3, 2]
    straight = len(set(ranks)) == 3 and (ranks[0] - ranks[2] == 2 or wheel)
    top = (3, 2, 1) if wheel else tuple(ranks)
    if straight and flush:
        return (5, top)
    if len(set(ranks)) == 1:
        return (4, top)
    if straight:
        return (3, top)
    if flush:
        return (2, top)
    if len(set(ranks)) == 2:
        pair = ranks[1]
        kicker = ranks[0] if ranks[0] != pair else ranks[2]
        return (1, (pair, kicker))
    return (0, top)


_THREE_CARD_NAMES = ("high_card", "one_pair", "flush", "straight", "three_of_a_kind", "straight_flush")


def _three_card_poker(
    table: RefTable, hands: dict[str, list[Card]], seats: Mapping[int, SeatState], exp: Expected
) -> None:
    """Ante and play against the dealer qualifying on queen high (the play pushes when he does
    not), the ante bonus on a straight or better whatever the dealer holds, pair plus on a pair
    or better, the 6 Card Bonus on the best five of the player's three cards and the dealer's
    three (three of a kind or better, whatever the dealer holds, the hand played or folded); a fold
    (an ante without a play wager) forfeits the ante and the pair plus. Settled from the dealer's
    right."""
    dealer = _three_card_value(hands["dealer"]) if len(hands.get("dealer", [])) == 3 else None
    qualifies = dealer is not None and dealer >= (0, (12, 3, 2))  # queen high or better
    for n in sorted(seats, reverse=True):
        s, out = seats[n], exp.outcomes.setdefault(n, {})
        own = hands.get(f"seat {n}", [])
        if s.wagers.get("six_card_bonus") and len(own) == 3 and len(hands.get("dealer", [])) == 3:
            six = CATEGORIES[best_five(own + hands["dealer"])[0][0]]
            out["six_card_bonus"] = _odds(pays(table.paytables["six_card_bonus"], six), s.wagers["six_card_bonus"], six)
        if s.folded_at is not None or (s.wagers.get("ante") and not s.wagers.get("play")):
            for spot, stake in s.wagers.items():
                if spot != "six_card_bonus":
                    out[spot] = WagerOutcome("lose", -stake, "folded")
            continue
        if len(own) != 3 or dealer is None:
            raise ValueError(f"seat {n}: {len(own)} cards against the dealer's: not a hand")
        exp.order.append(n)
        mine = _three_card_value(own)
        name = _THREE_CARD_NAMES[mine[0]]
        if s.wagers.get("pair_plus"):
            out["pair_plus"] = _odds(pays(table.paytables["pair_plus"], name), s.wagers["pair_plus"], "pair plus")
        ante = s.wagers.get("ante")
        if not ante:
            continue
        if not qualifies:
            out["ante"], out["play"] = WagerOutcome("win", ante, "dealer does not qualify"), WagerOutcome("even", 0, "")
        elif mine > dealer:
            out["ante"], out["play"] = WagerOutcome("win", ante, "higher"), WagerOutcome("win", ante, "higher")
        elif mine == dealer:
            out["ante"], out["play"] = WagerOutcome("even", 0, "tie"), WagerOutcome("even", 0, "tie")
        else:
            out["ante"], out["play"] = WagerOutcome("lose", -ante, "lower"), WagerOutcome("lose", -ante, "lower")
        bonus = pays(table.paytables["ante_bonus"], name)
        if bonus is not None:  # whatever the dealer holds
            out["ante_bonus"] = _odds(bonus, ante, "ante bonus")


def _boston5(table: RefTable, hands: dict[str, list[Card]], seats: Mapping[int, SeatState], exp: Expected) -> None:
    dealer = best_five(hands["dealer"])[0] if len(hands.get("dealer", [])) == 5 else None
    odds = str(table.settings.get("first_second_pays", "1 to 1")).split(" to ")
    num, den = int(odds[0]), int(odds[1])
    for n in sorted(seats, reverse=True):
        s, out = seats[n], exp.outcomes.setdefault(n, {})
        own = hands.get(f"seat {n}", [])
        if s.wagers.get("bonus"):  # 24.10(a): settled on the three cards, exposed, before the second wager
            stake = s.wagers["bonus"]
            if s.exposed and len(own) >= 3:
                out["bonus"] = _odds(pays(table.paytables["bonus"], three(own[:3])), stake, "bonus")
            else:
                out["bonus"] = WagerOutcome("lose", -stake, "bonus not exposed")
        if s.folded_at is not None:  # 24.10(b): ante and first wager forfeit
            for spot in ("ante", "first", "second"):
                if s.wagers.get(spot):
                    out[spot] = WagerOutcome("lose", -s.wagers[spot], "folded")
            continue
        if dealer is None or len(own) != 5:
            raise ValueError(f"seat {n}: {len(own)} cards, dealer {len(hands.get('dealer', []))}: not a hand")
        exp.order.append(n)
        mine = best_five(own)[0]
        for spot in ("first", "second"):
            stake = s.wagers.get(spot, 0)
            if not stake:
                continue
            if mine > dealer:
                out[spot] = WagerOutcome("win", stake * num // den, "player higher")
            elif mine < dealer:
                out[spot] = WagerOutcome("lose", -stake, "dealer higher")
            else:
                out[spot] = WagerOutcome("even", 0, "tie: push")
        ante = s.wagers.get("ante", 0)
        if ante:  # 24.10(f)1-3: the ante loses to a higher dealer, pushes a tie, is returned otherwise
            bonus = pays(table.paytables.get("ante_bonus", ()), CATEGORIES[mine[0]])
            if mine < dealer:
                out["ante"] = WagerOutcome("lose", -ante, "dealer higher")
            else:
                out["ante"] = WagerOutcome("even", 0, "returned or pushed")
            if bonus is not None:  # an ante bonus whatever the comparison (24.10(f)3)
                out["ante_bonus"] = _odds(bonus, ante, "ante bonus")


def _mississippi(table: RefTable, hands: dict[str, list[Card]], seats: Mapping[int, SeatState], exp: Expected) -> None:
    community = hands.get("community", [])
    for n in sorted(seats, reverse=True):
        s, out = seats[n], exp.outcomes.setdefault(n, {})
        if s.wagers.get("bonus"):  # on the community cards alone, in action after a fold (digest 2.5 item 7)
            stake = s.wagers["bonus"]
            if len(community) != 3:
                raise ValueError(f"{len(community)} community cards")
            out["bonus"] = _odds(pays(table.paytables["bonus"], three(community)), stake, "bonus")
        spots = ["ante", *STREETS]
        if s.violation:  # 35.10(c): a forfeiture of all wagers on that round
            for spot, stake in s.wagers.items():
                out[spot] = WagerOutcome("lose", -stake, "communication violation")
            continue
        if s.folded_at is not None:  # 35.10(a), (e), (g): the wagers so far forfeit
            for spot in spots:
                if s.wagers.get(spot):
                    out[spot] = WagerOutcome("lose", -s.wagers[spot], f"folded at {s.folded_at}")
            continue
        own = hands.get(f"seat {n}", [])
        if len(own) != 2 or len(community) != 3:
            raise ValueError(f"seat {n}: {len(own)} cards and {len(community)} community: not a hand")
        exp.order.append(n)
        value, chosen = best_five(own + community)
        category = CATEGORIES[value[0]]
        pair = _rank_name(value[1][0]) if category == "one_pair" else ""
        row = pays(table.paytables["main"], category, pair)
        for spot in spots:
            if s.wagers.get(spot):
                out[spot] = _odds(row, s.wagers[spot], category)


def _low(cards: list[Card]) -> tuple[int, tuple[int, ...]]:
    """A two-card hand: a pair above no pair, then by rank (the joker an ace)."""
    ranks = sorted((14 if r == 0 else r for r, _ in cards), reverse=True)
    return (1 if ranks[0] == ranks[1] else 0, tuple(ranks))


def _seven_straight_flush(cards: list[Card]) -> str:
    """ "seven_card_straight_flush" (no joker), "seven_card_straight_flush_joker", or ""."""
    natural = [c for c in cards if c[0] != 0]
    if len(cards) != 7 or len({s for _, s in natural}) != 1 or len({r for r, _ in natural}) != len(natural):
        return ""
    for ranks in ({r for r, _ in natural}, {1 if r == 14 else r for r, _ in natural}):
        if max(ranks) - min(ranks) <= 6:  # the joker (if any) fills the one gap or an end
            return "seven_card_straight_flush" if len(natural) == 7 else "seven_card_straight_flush_joker"
    return ""


def bonus_hands(cards: list[Card]) -> set[str]:
    """Every bonus line a seven-card hand makes (11.15(d)2: the joker completes a straight or a
    flush, else counts as an ace): each five-card choice's hand, and the seven-card lines."""
    made: set[str] = set()
    for chosen in combinations(range(len(cards)), 5):
        name = CATEGORIES[best_five([cards[i] for i in chosen])[0][0]]
        made.add(name)
        rest = [cards[i] for i in range(len(cards)) if i not in chosen]
        if name == "royal_flush" and sorted(r for r, _ in rest) == [12, 13] and rest[0][1] == rest[1][1]:
            made.add("royal_flush_royal_match")  # a royal flush high and a suited king-queen low
    seven = _seven_straight_flush(cards)
    if seven:
        made.add(seven)
    return made


def _best_line(rows: tuple[Row, ...], made: set[str], stake: int) -> Row | None:
    """The line of ``rows`` that pays most among the hands ``made`` (a hand is paid once)."""
    lines = [r for r in rows if r.hand in made]
    return max(lines, key=lambda r: (r.amount, stake * r.num // r.den), default=None)


def _pai_gow_side(table: RefTable, hands: dict[str, list[Card]], seats: Mapping[int, SeatState], exp: Expected) -> None:
    """11.15: the bonus wager, pai gow insurance and the envy bonus of each seat."""
    made = {n: bonus_hands(hands[f"seat {n}"]) for n in seats if len(hands.get(f"seat {n}", [])) == 7}
    envy_rows = table.paytables.get("envy", ())
    envy_min = int(table.settings.get("envy_minimum", 500))
    for n in sorted(seats, reverse=True):
        s, out = seats[n], exp.outcomes.setdefault(n, {})
        stake = s.wagers.get("bonus", 0)
        if stake:
            row = _best_line(table.paytables["bonus"], made.get(n, set()), stake)
            out["bonus"] = _odds(row, stake, "bonus")
        stake = s.wagers.get("insurance", 0)
        if stake:  # a pai gow: no pair, straight or flush, the joker only an ace; paid by its top card
            own = [(14, "*") if c[0] == 0 else c for c in hands.get(f"seat {n}", [])]
            ranks = [r for r, _ in own]
            values = {best_five(list(c))[0][0] for c in combinations(own, 5)}
            row = None
            if values == {0}:
                row = pays(table.paytables["insurance"], "high_card", _rank_name(max(ranks)))
            out["insurance"] = _odds(row, stake, "insurance")
        premium = _best_line(envy_rows, made.get(n, set()), 0) is not None
        if (s.wagers.get("bonus", 0) >= envy_min and envy_rows) or (s.wagers.get("bonus") and premium):
            exp.envy_order.append(n)  # 11.15(d)3: a marker to pay or collect, or a premium hand's bonus
        if s.wagers.get("bonus", 0) >= envy_min and envy_rows:  # 11.15(c), (d)3i: each other premium hand
            total = 0
            for other, lines in made.items():
                if other != n:
                    line = _best_line(envy_rows, lines, 0)
                    total += line.amount if line is not None else 0
            if total:
                out["envy"] = WagerOutcome("win", total, "envy")


def foxwoods_low(cards: Sequence[str]) -> frozenset[str] | None:
    """The front hand the Foxwoods house way sets from seven cards (house-ways.md), for the hands
    it states plainly: no pair (the second and third highest cards in front) and one pair (the
    pair in back, the two highest other cards in front), with no joker and no straight or flush
    among the seven. ``None``: a hand the model does not set."""
    if "JK" in cards or len(cards) != 7:
        return None
    parsed = [parse(c) for c in cards]
    for choice in combinations(parsed, 5):
        if CATEGORIES[best_five(list(choice))[0][0]] in ("straight", "flush", "straight_flush", "royal_flush"):
            return None
    counts: dict[int, int] = {}
    for r, _ in parsed:
        counts[r] = counts.get(r, 0) + 1
    by_rank = sorted(zip(parsed, cards, strict=True), key=lambda pc: -pc[0][0])
    if max(counts.values()) == 1:  # no pair
        return frozenset(c for _, c in by_rank[1:3])
    if sorted(counts.values()) == [1, 1, 1, 1, 1, 2]:  # one pair
        others = [c for (r, _), c in by_rank if counts[r] == 1]
        return frozenset(others[:2])
    return None


def _pai_gow(table: RefTable, record: Mapping[str, Any], seats: Mapping[int, SeatState], exp: Expected) -> None:
    """The pai gow wager only, against the dealer's set hands as recorded (the house way and the
    side wagers are not modelled): both hands higher wins less the commission, one higher is a
    push, a copy goes to the dealer."""
    dealer = dict(record.get("dealer_set") or {})
    if not dealer.get("high") or not dealer.get("low"):
        exp.settled = False
        return
    own = str(record.get("dealer_cards", "")).split()
    if str(table.settings.get("house_way", "")) == "foxwoods" and own:
        exp.dealer_low = foxwoods_low(own)
        if exp.dealer_low is not None:  # the model's own setting, not the table's
            dealer = {
                "low": " ".join(sorted(exp.dealer_low)),
                "high": " ".join(c for c in own if c not in exp.dealer_low),
            }
    d_high = best_five([parse(c) for c in str(dealer["high"]).split()], wheel_second=True)[0]
    d_low = _low([parse(c) for c in str(dealer["low"]).split()])
    percent = int(table.settings.get("commission_percent", 5))
    rounding = str(table.settings.get("commission_rounding", "down"))
    for n in sorted(seats, reverse=True):
        s, out = seats[n], exp.outcomes.setdefault(n, {})
        stake = s.wagers.get("pai_gow", 0)
        if not stake or not s.high or not s.low:
            continue
        exp.order.append(n)
        high = best_five([parse(c) for c in s.high.split()], wheel_second=True)[0]
        low = _low([parse(c) for c in s.low.split()])
        won = (high > d_high) + (low > d_low)
        if won == 2:
            raw = stake * percent
            fee = raw // 100 if rounding == "down" else -(-raw // 100) if rounding == "up" else (raw + 50) // 100
            out["pai_gow"] = WagerOutcome("win", stake - fee, "both hands higher")
        elif won == 1:
            out["pai_gow"] = WagerOutcome("even", 0, "one hand higher")
        else:
            out["pai_gow"] = WagerOutcome("lose", -stake, "no hand higher (copies to the dealer)")


def expect_round(
    table: RefTable,
    cards: Sequence[str],
    seats: Mapping[int, SeatState],
    record: Mapping[str, Any] | None = None,
) -> Expected:
    """What the rules make of a round: ``cards`` the cards dealt in order, ``seats`` each seat's
    wagers and decisions, ``record`` anything else the game needs (pai gow: ``start``, the
    dealer's set hands ``dealer_set``)."""
    record = record or {}
    exp = Expected()
    exp.destinations = deal_destinations(table, len(cards), seats, record.get("start"))
    hands: dict[str, list[Card]] = {}
    for card, to in zip(cards, exp.destinations, strict=True):
        hands.setdefault(to, []).append(parse(card))
    if table.game == "boston5":
        _boston5(table, hands, seats, exp)
    elif table.game == "mississippi_stud":
        _mississippi(table, hands, seats, exp)
    elif table.game == "three_card_poker":
        _three_card_poker(table, hands, seats, exp)
    elif table.game == "pai_gow":
        _pai_gow(table, record, seats, exp)
        _pai_gow_side(table, hands, seats, exp)
    for n, out in exp.outcomes.items():
        won = 0
        for spots, cap in _caps(table, out):
            part = sum(o.net for spot, o in out.items() if spot in spots and o.net > 0)
            if cap is not None and part > cap:
                exp.capped.add(n)
                part = cap
            won += part
        lost = sum(o.net for o in out.values() if o.net < 0)
        exp.nets[n] = won + lost
    return exp


def _caps(table: RefTable, out: Mapping[str, WagerOutcome]) -> list[tuple[set[str], int | None]]:
    """The wagers of a seat's ``out`` in groups whose payouts one cap limits together, each with
    its cap (``None``: none). Mississippi Stud: the table's aggregate cap, and the main paytable's,
    on the ante and bet wagers (regulations digest 2.6, the cap beside their paytable), the 3-card
    bonus apart under its own paytable's cap only; every other game: the table's cap on
    everything."""
    if table.game != "mississippi_stud":
        return [(set(out), table.cap)]
    main = {"ante", *STREETS}
    caps = [c for c in (table.cap, table.paytable_caps.get("main")) if c is not None]
    return [(main, min(caps) if caps else None), (set(out) - main, table.paytable_caps.get("bonus"))]
