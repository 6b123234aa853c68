"""The dealer's screen over real ptys, one round per game: at every dealer action the screen shown
just before it (on the simulated panel) carries the prompt for that action, naming its button, and
no line is wider than the display."""

from __future__ import annotations

from pathlib import Path

from hil_table import HilTable, shoe, wait

from controller.configuration import config_dir, load_table

WORDS = {
    "no_more_bets": "no more bets",
    "reveal": "reveal",
    "deal": "deal",
    "confirm": "confirm",
    "next": "next",
    "fold": "fold",
    "settle": "settle",
}
"""What the screen says for each button (a seat button: ``seat``)."""


class Checked:
    """Acts on a HIL table like a dealer reading the panel: each action only after its prompt."""

    def __init__(self, t: HilTable) -> None:
        self.t = t
        self.checked = 0

    def before(self, word: str) -> None:
        lines = self.t.screen()
        columns = self.t.snap.display[1]
        assert all(len(line) <= columns for line in lines), lines
        assert len(lines) == self.t.snap.display[0]
        assert word in " ".join(lines), f"{word!r} not on the screen {lines}"
        self.checked += 1

    def press(self, *buttons: str) -> None:
        for b in buttons:
            self.before("seat" if b.startswith("seat_") else WORDS[b])
            self.t.press(b)

    def deal(self, n: int) -> None:
        self.before("deal")
        self.t.deal(n)

    def settle(self, checked: int) -> None:
        """Confirms the settlement, each wager after its prompt; the round settled as ``tablectl
        settle`` settles its record, and at least ``checked`` prompts were read in it."""
        while self.t.step == "settlement":
            self.press("confirm")
        self.t.settles_as_tablectl_settle(self.t.results[-1])
        assert self.checked >= checked


def bench(game: str, tmp_path: Path) -> HilTable:
    """A HIL table of the bench config of ``game``."""
    return HilTable(load_table(config_dir() / "bench" / f"{game}.yaml"), tmp_path)


def test_mississippi_stud_round(tmp_path: Path) -> None:
    with bench("mississippi_stud", tmp_path) as t:
        d = Checked(t)
        for seat in (1, 3, 5):
            t.spot(seat, "ante", 500)
        t.spot(1, "bonus", 100)
        d.press("no_more_bets")
        t.load(shoe("As Ad Kc Qd 9h 9s 7h 8h 2c"))
        d.deal(9)
        t.spot(1, "third", 500)
        t.spot(3, "third", 1000)
        d.press("seat_5", "fold", "confirm", "reveal")
        t.spot(1, "fourth", 500)
        d.press("seat_3", "fold", "confirm", "reveal")
        t.spot(1, "fifth", 1500)
        d.press("reveal")
        d.settle(checked=12)


def test_boston5_round(tmp_path: Path) -> None:
    with bench("boston5", tmp_path) as t:
        d = Checked(t)
        for seat in (1, 2, 4):
            t.spot(seat, "ante", 500)
            t.spot(seat, "first", 1000)
        t.spot(2, "bonus", 500)
        t.spot(4, "bonus", 500)
        d.press("no_more_bets")
        t.load(shoe("As Ks Qs 8h 8d 9c 2h 7d 9s 3c 4d 5h Js Ts 6h 6c 8c 9d"))
        d.deal(12)
        d.press("seat_2", "next")
        while t.step == "bonus_settlement":
            d.press("confirm")
        t.spot(1, "second", 1000)
        t.spot(2, "second", 1000)
        d.press("seat_4", "fold", "confirm", "deal")
        d.deal(6)
        d.settle(checked=12)


def test_pai_gow_round(tmp_path: Path) -> None:
    with bench("pai_gow", tmp_path) as t:
        from test_hil_pai_gow import DICE, shoe_for

        d = Checked(t)
        t.spot(2, "pai_gow", 1000)
        t.spot(2, "bonus", 500)
        t.spot(2, "envy_marker", 1)
        t.spot(5, "pai_gow", 2500)
        t.spot(5, "insurance", 100)
        d.press("no_more_bets")
        d.press(*["next"] * (DICE - 3), "confirm")
        t.load(shoe_for({}))
        before = t.count("ShoeStatus")
        d.deal(49)
        t.settled("ShoeStatus", before, 1)
        d.press("confirm")  # the players' hands set and face down (11.9)
        d.press("confirm")  # the dealer's hand, exposed and set first (11.9)
        d.press("next", "confirm")  # seat 5: another legal set
        d.press("confirm")  # seat 5's pai gow wager, settled as it is turned
        d.press("fold")  # seat 2: a foul
        d.press("confirm")  # seat 2's pai gow wager
        d.settle(checked=10)


def test_the_screen_fits_the_size_the_panel_reports(tmp_path: Path) -> None:
    table = load_table(config_dir() / "bench" / "mississippi_stud.yaml")  # display: 4 x 40
    with HilTable(table, tmp_path, display=(6, 40)) as t:
        wait(lambda: (t.snap.display[0], t.snap.display[1]) == (6, 40), "the panel's display size")
        d = Checked(t)
        t.spot(1, "ante", 500)
        d.press("no_more_bets")
        assert all(len(line) <= 40 for line in t.screen()) and len(t.screen()) == 6


def test_spot_lamps_follow_the_round(tmp_path: Path) -> None:
    with bench("mississippi_stud", tmp_path) as t:
        lamps = t.spots.lamps
        t.spot(2, "ante", 500)
        t.spot(2, "bonus", 100)
        wait(lambda: lamps.get((2, "bonus")) == "open", "the bonus lamp open")
        t.spot(2, "bonus", 0)
        wait(lambda: lamps.get((2, "bonus")) == "off", "the emptied spot's lamp off")
        t.spot(4, "ante", 1000)
        t.press("no_more_bets")
        t.load(shoe("As Ad Kc Qd 7h 7c 2c"))  # seat 2: a pair of aces wins; seat 4 folds
        t.deal(7)
        t.spot(2, "third", 500)
        t.press("seat_4", "fold")
        wait(lambda: lamps.get((4, "ante")) == "off", "the folded seat's lamp off when collected")
        t.press("confirm", "reveal")
        t.spot(2, "fourth", 500)
        t.press("reveal")
        t.spot(2, "fifth", 500)
        t.press("reveal")
        t.press("confirm")  # seat 2's step turns its hand (35.10(i)): its winner lamps light then
        wait(lambda: lamps.get((2, "ante")) == "winner" and lamps.get((2, "fifth")) == "winner", "winner lamps")
        t.finish()
        wait(
            lambda: all(lamps.get((n, "ante")) == "attract" for n in range(1, 7)) and lamps.get((2, "third")) == "off",
            "attract between rounds, the round's other lamps off",
        )


def test_a_void_list_stays_until_read_page_by_page(tmp_path: Path) -> None:
    with bench("mississippi_stud", tmp_path) as t:
        for seat in range(1, 7):
            t.spot(seat, "ante", 500)
            t.spot(seat, "bonus", 100)
        t.press("no_more_bets")
        t.key()
        t.press("void")
        assert t.step == "betting" and t.snap.round_no == 2
        first = t.screen()
        assert first[1] == "round 1 void: return all (confirm)" and first[0].endswith("/6")
        t.spot(1, "ante", 500)  # the next round's bets do not take the list away
        assert t.screen() == first
        read = []
        for _ in range(6):
            read += t.screen()[2:]
            t.press("confirm")  # the next page; on the last, read
        assert "void: seat 6: return bonus 1.00" in " ".join(read)
        assert t.screen()[1] == "round 2: place bets; then no more bets"
