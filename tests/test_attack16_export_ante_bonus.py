"""Attack on the regulator's export (``tablectl export``): Three Card Poker's (and Boston 5's) ante
bonus, a payout line on the ante, is written as a row whose ``amount`` (what was staked) is the
ante again, so the ante is counted twice for every ante bonus paid: the export's staked total is
more than the table's handle (``tablectl meters``: the ante bonus is "set against the ante's
handle", docs/journal.md).

The rule: docs/journal.md, "Export for the regulator": ``amount`` is what was staked, and "a
payout line on a wager, such as pai gow's envy bonus, is a row with nothing staked"; the meters
must add up (13:69E-1.28P(e): every meter needed for the win report; digest 5.3 E). Found on main:
a bench table of 40 rounds exported 11 ``ante_bonus`` rows staking 150.00 that no one staked
(export total 5,961.00, handle 5,811.00); a Boston 5 bench of 150 rounds, 55 rows, 740.00."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from cli_helpers import bench_journal, cli
from journal_helpers import settled_rounds


def test_the_ante_bonus_row_stakes_nothing_and_the_export_adds_up_to_the_handle(tmp_path: Path) -> None:
    path = bench_journal(tmp_path, "three_card_poker", 8, 6, 5, fold_rounds=False)
    rounds = settled_rounds(path)
    days = {datetime.fromtimestamp(at).date().isoformat() for _, at, _ in rounds}
    rows: list[dict[str, object]] = []
    for day in sorted(days):
        code, out, err = cli("export", "--journal", str(path), "--day", day, "--format", "jsonl")
        assert code == 0, err
        rows += [json.loads(line) for line in out.splitlines() if line.strip()]
    staked = {
        (number, int(seat), spot): cents
        for number, _, data in rounds
        for seat, entry in data["record"]["seats"].items()
        for spot, cents in entry["wagers"].items()
    }
    lines = [r for r in rows if (r["round"], r["seat"], r["wager"]) not in staked]
    assert any(r["wager"] == "ante_bonus" for r in lines), "no ante bonus paid in these rounds: pick another seed"
    wrong = [(r["round"], r["seat"], r["wager"], r["amount_cents"]) for r in lines if r["amount_cents"] != 0]
    assert not wrong, f"payout lines exported with a stake: {wrong}"
    assert sum(int(str(r["amount_cents"])) for r in rows) == sum(staked.values())
