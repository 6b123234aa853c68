"""Nothing outside ``controller/table`` reaches into a RoundTable: the web views, the bench and soak
players, the CLI, the floor and the tests read the table's snapshot (controller.table.snapshot).

An AST check over every module outside the table package: an expression that is a table
machine (``<...>runtime.table``, ``<...>.m`` of the test harnesses, a game table class called,
a class taken from ``GAME_TABLES`` called, or a name bound to any of these) may only be handed
events (``handle``) or passed on whole (to the snapshot builder, an engine, a runtime); any other
attribute read or written on it is a reach into its internals. Tests of the table's own
internals are allowed by name in :data:`ALLOWED`, each with why.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SCANNED = ("controller/web", "controller/cli", "controller/floor", "hil", "tests")
"""Where nothing may read a table's internals (every ``.py`` below these folders)."""

TABLE_CLASSES = frozenset({"RoundTable", "MississippiTable", "Boston5Table", "PaiGowTable"})
HARNESS_ATTRIBUTES = frozenset({"m"})
"""``FedTable.m`` and ``HilTable.m``: the machine a test harness drives."""
INTERFACE = frozenset({"handle", "journal_failed"})
"""What anyone may do with a table machine: hand it an event (as a device would), or tell it
the journal refused a record (the engine's ``on_journal_error`` hook)."""

ALLOWED: dict[str, str] = {
    "tests/test_table_boston5.py": "tests of the Boston 5 machine's internals (controller/game/boston5/_machine.py)",
    "tests/test_table_mississippi.py": "tests of the Mississippi Stud machine's internals",
    "tests/test_table_pai_gow.py": "tests of the pai gow machine's internals",
    "tests/test_table_outages.py": "tests of the machines' link-loss and hold internals (controller/table/_holds.py, _links.py)",
    "tests/test_table_triggers.py": "tests of the machines' declared triggers (controller/table/phases.py)",
    "tests/test_table_shoe_faults.py": "tests of the machines' shoe-fault holds and of bets while held in betting (controller/table/_shoe_faults.py, _wagers.py)",
    "tests/test_wager_steps.py": "tests of the one wager rule in every game's wager steps, held or not (controller/table/_wagers.py)",
    "tests/test_table_paths.py": "tests of the round's path for each kind of event: refused spot reports, cards that break the shoe's count (controller/table/round.py, _card_intake.py, _bet_board.py)",
    "tests/test_attack_screen_fresh.py": "tests that every screen sent, held or not, is the screen made from scratch from the round's state, while rounds are played to their settlement and stub count (controller/table/_dealer_screen.py, screen.py)",
    "tests/test_table_screen_sent.py": "tests of the dealer screen's internals: the screen sent is its state's after every event (controller/table/_dealer_screen.py, round.py)",
    "tests/test_runtime_work_once.py": "checks the players' log of cards, made once per card, against the round's card list after every event (controller/table/snapshot_build.py)",
    "tests/test_collector.py": "counts the objects the collector walks over rounds driven as benchmarks/bench_table.py drives a table (the stub count answered from the machine, as the bench does)",
    "tests/test_attack11_card_intake.py": "attacks on the card intake's fast path, checked on the round's placed cards, card list and misread card (controller/table/_card_intake.py, _links.py)",
    "tests/test_sweep13_open_findings.py": "pins two older simulation findings on a fed table: the round opened held for a link lost during another hold and voided, a late bonus settled once, read on the machine's holds, phase and rounds as test_table_outages.py does (controller/table/_holds.py, _links.py, _late_bets.py)",
    "tests/test_sweep13_read_again_after_clear_fault.py": "a misread card read again after clear fault, checked on the round's card intake, placed cards and holds as test_attack12_misread_hold.py does (controller/table/_card_intake.py, _holds.py)",
    "tests/test_attack12_misread_hold.py": "attacks on the misread card's hold, every way out and a restart mid-hold, checked on the round's placed cards, waiting cards and hold reason, as test_attack11_card_intake.py (controller/table/_card_intake.py, _holds.py)",
    "tests/test_attack11_presses.py": "attacks on Mississippi Stud's reveal press, read by the notes each press made (controller/table/_dealer_screen.py, the game's machine)",
    "tests/test_attack11_spots.py": "attacks on the spot report's fast path, read by the seats' wagers and the late bets noted (controller/table/_bet_board.py, _wagers.py, _late_bets.py)",
    "tests/test_beyond_the_deal.py": "tests of the machines' card intake and settlement walk (controller/table/_card_intake.py, _settlement_walk.py)",
    "tests/test_press_again.py": "tests of the dealer's screen notes and the hold's way on (controller/table/_dealer_screen.py, _holds.py)",
    "tests/test_supervisor_hold_outage.py": "tests that a supervisor-only hold stays one across a journal outage (controller/table/_links.py, _holds.py)",
    "tests/test_sign_in.py": "tests of the machines' sign-ins and lockouts in every state (controller/table/_sign_in.py, _supervisor.py)",
    "tests/test_sign_in_attacks.py": "tests of the sign-in back-off, lockout ways out and sign-off rules in every state (controller/table/_sign_in.py)",
    "tests/test_screen_version.py": "tests that each collaborator says when what the dealer screen is made of changed (controller/table/_round_state.py, _dealer_screen.py, the games' machines)",
    "tests/test_waiting14_cards_after_hold.py": "cards out of the shoe during a hold that ends by itself after the deal, driven to each state through the machine's phase, stub and board as test_table_outages.py does (controller/table/_links.py, _card_intake.py)",
    "tests/test_b5hold15_cards_once_the_deal_began.py": "cards out of the shoe during a hold once the round's deal has begun (Boston 5 between its deals, every game's streets and stub count after a misdeal), driven to each state through the machine's stub, board, display and ledger as test_waiting14_cards_after_hold.py does (controller/table/_links.py, _card_intake.py)",
    "tests/test_turn16_bonus_stays_exposed.py": "the Boston 5 machine's supervisor action un-exposing a bonus hand: what it journals, read from the machine's audit hook as test_table_mississippi.py reads the communication violation's (controller/game/boston5/_machine.py)",
    "tests/test_turn16_turned_in_order.py": "sets the machine's rounds since the stub was counted, as test_table_shoe_faults.py does, to reach the stub count right after the settlement (controller/table/_stub_count.py)",
    "tests/test_holds16_card_entry_hidden.py": "checks the card entered is the card chosen, on the round's card ledger, as test_attack12_misread_hold.py does (controller/table/_card_intake.py, card_ledger.py)",
    "tests/test_holds16_clear_fault_record.py": "reads what the clear fault journals from the machine's audit hook, as test_turn16_bonus_stays_exposed.py does (controller/table/_holds.py)",
    "tests/test_holds16_stub_cards_out.py": "cards out of the shoe at the stub count, driven there through the machine's stub, board, display and ledger as test_b5hold15_cards_once_the_deal_began.py does (controller/table/_stub_count.py, card_ledger.py)",
    "tests/test_attack16b_late_change_after_a_void.py": "confirms the void's returns on the machine's display until none is left, as test_b5hold15_cards_once_the_deal_began.py does (controller/table/_dealer_screen.py)",
    "tests/test_void16_late_prompt_during_card_entry.py": "reads the screen's details (its later pages, not in a snapshot) from the machine's screen_details (controller/table/_late_bets.py)",
    "tests/test_settle_written.py": "checks a table's own settled record is settled without its JSON written, on the machine's config and round records (controller/game/record/_settle.py)",
    "tests/test_table_physical_facts.py": "pins four older notes as not bugs on the machine's card log, ledger, stub, seats and audit hook, as test_holds16_stub_cards_out.py does (controller/table/_card_intake.py, card_ledger.py, _wagers.py)",
    "tests/test_lamps16_winner_lit_when_turned.py": "reads which spots win from the machine's settlement walk and seats, to check the lamps lit against them at every step (controller/table/_settlement_walk.py)",
    "tests/test_snapshot_only.py": "this check (its own sample of a reach, in a string)",
}
"""Modules outside controller/table allowed to read a table's internals, and why."""


def machine_tests() -> frozenset[str]:
    """``tests/test_table_<game>.py`` of every game of the registry: tests of that game's own round
    machine's internals (its package's ``table`` module), allowed as the entries above are."""
    from controller.game.registry import names

    return frozenset(f"tests/test_table_{game}.py" for game in names())


def _is_table_call(node: ast.expr, classes: set[str]) -> bool:
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    if isinstance(f, ast.Name) and (f.id in TABLE_CLASSES or f.id in classes):
        return True
    if isinstance(f, ast.Attribute) and f.attr in TABLE_CLASSES:
        return True
    return isinstance(f, ast.Subscript) and isinstance(f.value, ast.Name) and f.value.id == "GAME_TABLES"


def _is_runtime(node: ast.expr) -> bool:
    """``runtime``, ``self.runtime``, ``h.runtime``, ``rt``: something named a runtime."""
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return "runtime" in name.lower() or name == "rt"


class _Reaches(ast.NodeVisitor):
    """Collects ``(line, text)`` of each reach into a table machine in one module."""

    def __init__(self) -> None:
        self.tables: set[str] = set()
        """Names bound to a table machine (module-wide: a false positive is a name to rename)."""
        self.classes: set[str] = set()
        """Names bound to a game table class (``cls = GAME_TABLES[game]``)."""
        self.found: list[tuple[int, str]] = []

    def is_table(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Name):
            return node.id in self.tables
        if isinstance(node, ast.Attribute):
            if node.attr == "table" and _is_runtime(node.value):
                return True
            if node.attr in HARNESS_ATTRIBUTES:
                return True
        return _is_table_call(node, self.classes)

    def bind(self, targets: list[ast.expr], value: ast.expr) -> None:
        for target in targets:
            if not isinstance(target, ast.Name):
                continue
            if self.is_table(value):
                self.tables.add(target.id)
            elif (
                isinstance(value, ast.Subscript)
                and isinstance(value.value, ast.Name)
                and value.value.id == "GAME_TABLES"
            ):
                self.classes.add(target.id)

    def visit_Assign(self, node: ast.Assign) -> None:
        self.bind(node.targets, node.value)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.bind([node.target], node.value)
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if self.is_table(node.value) and node.attr not in INTERFACE:
            self.found.append((node.lineno, f"{ast.unparse(node.value)}.{node.attr}"))
        self.generic_visit(node)


def reaches(source: str) -> list[tuple[int, str]]:
    """Every reach into a table machine in ``source`` (two passes: names bound late count too)."""
    tree = ast.parse(source)
    first = _Reaches()
    first.visit(tree)
    second = _Reaches()
    second.tables, second.classes = first.tables, first.classes
    second.visit(tree)
    return sorted(set(second.found))


def scanned_modules() -> list[Path]:
    return sorted(p for folder in SCANNED for p in (ROOT / folder).rglob("*.py") if ".venv" not in p.parts)


def test_the_check_finds_a_reach() -> None:
    sample = (
        "def f(runtime, h):\n"
        "    t = runtime.table\n"
        "    a = t.phase.value\n"
        "    b = h.m.seats\n"
        "    c = runtime.snapshot.step\n"
        "    t.handle(None)\n"
        "    m = PaiGowTable(config, devices)\n"
        "    return m.hands\n"
    )
    assert [text for _, text in reaches(sample)] == ["t.phase", "h.m.seats", "m.hands"]


def test_nothing_outside_the_table_package_reads_a_round_table() -> None:
    problems = []
    for path in scanned_modules():
        rel = path.relative_to(ROOT).as_posix()
        if rel in ALLOWED or rel in machine_tests():
            continue
        for line, text in reaches(path.read_text()):
            problems.append(f"{rel}:{line}: {text}")
    assert not problems, "reads a RoundTable's internals (read its snapshot instead):\n" + "\n".join(problems)


def test_every_allowed_module_exists_and_says_why() -> None:
    for rel, why in ALLOWED.items():
        assert (ROOT / rel).is_file(), f"{rel}: allowed but missing"
        assert why.strip(), f"{rel}: allowed without a reason"
