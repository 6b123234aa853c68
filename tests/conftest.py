"""Shared helpers: build hands from text, convert cards for the reference evaluator; the HIL
table fixtures (the real controller over ptys against the simulators) every HIL test uses."""

from __future__ import annotations

import functools
import gc
import itertools
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))

from deadlines import STATE_TIMEOUT_S
from floor_fixtures import data_folder, floor_db, floor_folder, floor_link, floor_site  # noqa: F401  (the floor's shared servers)

from controller.hands import BOSTON5, HandValue, evaluate_best
from controller.hands.rules import HandRules
from controller.vocab import ALL_CARDS, Card, parse_cards

if TYPE_CHECKING:
    from hil_table import HilTable

    from controller.configuration import TableConfig

REPO = Path(__file__).resolve().parent.parent

# Compiled modules are kept, also where the environment says not to (PYTHONDONTWRITEBYTECODE):
# without them each worker rewrites every test module's asserts on every run (about 7 s of CPU a
# worker, 12 s of collection against 4.5 s), and each of the hundreds of processes the tests start
# (`tablectl run`, `python -m controller ...`) compiles the project's modules it imports (about 1 s
# of CPU each: 1.4 s against 0.44 s for the table, the bench, the CLI and the floor's ingest).
# The caches are ``__pycache__`` folders, which git ignores; the tests' outcome is the same.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# The tests' own folders (``tmp_path``, ``tmp_path_factory``) in memory when there is room for them
# (``floor_fixtures.data_folder``: /dev/shm with 2 GiB free, as the floor's servers), else where
# pytest puts them: every journal a test writes commits with ``fsync`` (``synchronous=FULL``, as a
# table's), and on a disk each such commit waits for it. Read by pytest when it makes its base
# folder, after this conftest is imported (in the controller, whose base folder xdist's workers
# share). Passed tests' folders are removed as they pass (``tmp_path_retention_policy``,
# pyproject.toml), so a run holds in memory only what its tests hold at once and its failures.
# ``PYTEST_DEBUG_TEMPROOT`` set already (or ``--basetemp``) is kept. docs/testing.md, "CI time".
if "PYTEST_DEBUG_TEMPROOT" not in os.environ and (_memory := data_folder()) is not None:
    os.environ["PYTEST_DEBUG_TEMPROOT"] = _memory

# No timing in tests: the machines are shared, and first calls build lookup tables.
# The test command is derandomized: every property test draws the same examples on every run and
# machine, so it passes or fails on the code alone, never by the draw (docs/testing.md).
# TABLECTL_HYPOTHESIS=explore draws new examples each run (and keeps failing ones in
# .hypothesis/), to look for cases the fixed draw does not reach.
settings.register_profile("tablectl", deadline=None, derandomize=True, database=None)
settings.register_profile("explore", deadline=None, derandomize=False)
HYPOTHESIS_PROFILES = {"": "tablectl", "derandomized": "tablectl", "explore": "explore"}
"""``TABLECTL_HYPOTHESIS`` -> the hypothesis profile loaded (unset: derandomized)."""
_profile = os.environ.get("TABLECTL_HYPOTHESIS", "").strip()
if _profile not in HYPOTHESIS_PROFILES:
    raise pytest.UsageError(
        f"TABLECTL_HYPOTHESIS={_profile!r}: unknown; use explore (new examples each run) or leave it unset (derandomized)"
    )
settings.load_profile(HYPOTHESIS_PROFILES[_profile])


def hand(text: str, rules: HandRules = BOSTON5) -> HandValue:
    """The best-five value of the hand written as ``text``."""
    return evaluate_best(parse_cards(text), rules)


def to_ref(cards: Sequence[Card]) -> list[tuple[int, str] | None]:
    """Cards in the reference evaluator's form (the joker as ``None``)."""
    return [None if c.is_joker else (int(c.rank), c.suit.value) for c in cards]  # type: ignore[union-attr]


def hands_of(size: int, *, joker: bool = False) -> st.SearchStrategy[list[Card]]:
    """A strategy for ``size`` distinct cards from the 52-card (or 53-card) deck."""
    pool = ALL_CARDS if joker else ALL_CARDS[:52]
    return st.lists(st.sampled_from(pool), min_size=size, max_size=size, unique=True)


@pytest.fixture
def repo() -> Path:
    """The repository root."""
    return REPO


@pytest.fixture
def hil_table(tmp_path: Path) -> Iterator[Callable[[TableConfig], HilTable]]:
    """Opens a ``HilTable`` (simulators on ptys, the real drivers and controller) on a table
    config, in the test's folder; every table opened is closed when the test ends."""
    from hil_table import HilTable

    tables: list[HilTable] = []
    with ExitStack() as opened:

        def open_table(table: TableConfig) -> HilTable:
            folder = tmp_path / f"table-{len(tables)}" if tables else tmp_path
            tables.append(opened.enter_context(HilTable(table, folder)))
            return tables[-1]

        yield open_table


@pytest.fixture
def t(request: pytest.FixtureRequest, hil_table: Callable[[TableConfig], HilTable]) -> HilTable:
    """The HIL table of the test module's ``TABLE`` (its table config)."""
    return hil_table(request.module.TABLE)


def _open_fds() -> set[str]:
    try:
        return set(os.listdir("/proc/self/fd"))
    except FileNotFoundError:  # pragma: no cover - not Linux
        return set()


@pytest.fixture(autouse=True)
def no_leaks():
    """Fail any test that leaves a thread, port, pty or file descriptor open. What a test closed
    may take a while to be gone (a thread ending, a port closed by its thread): the check waits
    for that state with the tests' one deadline, not a few seconds a loaded machine can overrun."""
    threads = set(threading.enumerate())
    fds = _open_fds()
    yield
    deadline = time.monotonic() + STATE_TIMEOUT_S
    for attempt in itertools.count():
        extra_threads = [t for t in threading.enumerate() if t not in threads and t.is_alive()]
        extra_fds = _open_fds() - fds
        if not extra_threads and not extra_fds:
            return
        if time.monotonic() > deadline:
            break
        # What the test dropped in a reference cycle (a journal's connection held by a caught
        # exception's frames) is young: collecting the young generations frees it, at once. A full
        # collection walks the worker's whole heap (0.2 s of CPU late in a run): once after that,
        # then about once a second while a thread ends.
        gc.collect(2 if attempt % 20 == 1 else 1)
        if attempt:
            time.sleep(0.05)
    described = []
    for fd in sorted(extra_fds):
        try:
            described.append(f"{fd} -> {os.readlink(f'/proc/self/fd/{fd}')}")
        except OSError:
            pass  # closed while we looked
    if extra_threads or described:
        pytest.fail(f"left open: threads {[t.name for t in extra_threads]}, fds {described}")


@pytest.fixture(scope="session", autouse=True)
def scrypt_once() -> Iterator[None]:
    """Each PIN check's scrypt is computed once per worker for the same PIN, salt and cost, and
    remembered: the sign-in tests check the same roster's few PINs hundreds of times (at about
    0.04 s of CPU each, and several times that on a loaded machine), and scrypt is a pure function
    of those inputs, so every check still gives the same answer. The tests count checks above it
    (``pin_matches``, the table's ``SignIns``), never its cost in time; a new salt (``hash_pin``)
    is computed as before."""
    from controller.configuration import _roster

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_roster, "_scrypt", functools.cache(_roster._scrypt))
        yield


@pytest.fixture(scope="session")
def mississippi_solved_once() -> Iterator[None]:
    """Mississippi Stud's solver run once per worker for a paytable and remembered (a pure
    function of its paytable): ``test_par.py`` checks the solver's figures against a direct
    recursion and the published ones, ``test_par_data.py`` checks that the data shipped is what it
    computes; each solve is about 4 s of CPU, the two modules share a worker (``SAME_WORKER``)."""
    from controller.par import mississippi

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(mississippi, "solve", functools.cache(mississippi.solve))
        yield


SECONDS: dict[str, float] = {
    "test_simulate_swarm.py::test_every_ci_swarm_seed_keeps_every_invariant": 155.0,
    "test_hil_link.py::test_every_event_exactly_once_through_faults_and_reboots": 71.0,
    "test_par_data.py::test_shipped_boston5_and_pai_gow_data_is_the_solvers": 59.0,
    "test_web_pit_isolation.py::test_a_malformed_value_in_any_column_harms_only_its_own_table": 54.0,
    "test_seven_card.py::test_every_seven_card_rank_multiset_is_ranked_as_the_reference_ranks_it": 14.0,  # ci16: key5 remembered
    "test_floor.py::test_postgres_stopped_for_a_while": 48.0,
    "test_simulate.py::test_every_ci_seed_keeps_every_invariant": 42.0,
    "test_crash.py::test_killed_at_chosen_records_the_rounds_equal_an_uninterrupted_run": 38.0,
    "test_bench_floor.py::test_bench_floor_tiny_runs_signed_and_exactly_once": 38.0,
    "test_floor_isolation.py::test_create_stream_and_an_ingest_that_says_once_why_it_waits": 35.0,
    "test_par.py::test_mississippi_matches_a_direct_recursion_over_ordered_deals": 26.0,  # Mississippi solved here
    "test_architecture.py::test_prints_each_measure": 30.0,
    "test_floor.py::test_three_node_cluster_loses_a_node": 30.0,
    "test_hypothesis_profile.py::test_explore_draws_new_examples_and_another_value_is_refused": 29.0,
    "test_floor.py::test_bench_tables_reach_postgres_exactly_once": 25.0,
    "test_five_card.py::test_all_2598960_five_card_hands_have_the_published_counts": 24.0,
    "test_screen.py::test_every_screen_is_the_screen_made_from_scratch": 25.0,
    "test_floor_quarantine_close.py::test_a_refused_forgery_is_closed_by_resolve_and_kept_as_evidence": 23.0,
    "test_soak_verdict.py::test_a_table_paying_another_paytable_fails_the_verdict": 23.0,
    "test_floor.py::test_broker_killed_and_ingest_killed_mid_run": 23.0,
    "test_par_cache.py::test_the_pit_never_computes_in_its_own_process": 22.0,
    "test_floor_report.py::test_floor_report_figures_equal_tablectl_meters": 20.0,
    "test_deploy.py::test_a_bench_table_with_its_web_views_runs_under_memory_deny_write_execute": 20.0,
    "test_floor_flood.py::test_one_table_flooding_the_floor_holds_up_no_other_table": 20.0,
    "test_simulate_guard.py::test_the_guard_passes_the_same_code_and_catches_a_changed_journal": 19.0,
    "test_floor_quarantine_close.py::test_the_stolen_signing_key_runbook_ends_with_the_floor_equal_to_the_journal": 19.0,
    "test_bench_web.py::test_bench_web_smallest_run_prints_every_figure": 19.0,
    "test_snapshot_only.py::test_nothing_outside_the_table_package_reads_a_round_table": 18.0,
    "test_web_table.py::test_pai_gow_round_through_the_page": 18.0,
    "test_web_table.py::test_boston5_round_through_the_page": 18.0,
    "test_web_browser_isolation.py::test_the_table_page_isolated_from_other_clients_and_ports": 17.0,
    "test_journal_canonical.py::test_the_text_is_the_stdlibs_for_any_value": 17.0,
    "test_web_table.py::test_mississippi_round_through_the_page": 17.0,
    "test_floor.py::test_floor_serve_runs_a_single_machine_floor": 17.0,
    "test_soak_speed.py::test_memory_is_sampled_over_the_run_and_printed": 17.0,
    "test_floor.py::test_a_table_is_reingested_from_its_journal": 17.0,
}
"""Seconds one case of each of the slowest tests took (setup and teardown included), from
``pytest --durations=80`` on the shared 2-core machine at load 7-12, 2026-12-07 (docs/benchmarks.md,
"The test suite"): some three times a quiet machine's, but only their order counts (``test_par.py``'s
Mississippi Stud figure: ``-n 0`` at load 8-9 once it was solved there for ``test_par_data.py`` too,
suite14). Every other test counts as ``OTHER_S``. A figure out of date makes a run slower, never different."""

OTHER_S = 0.05
"""What a test not in ``SECONDS`` counts as (most take a few hundredths of a second)."""

SAME_WORKER = {"test_par.py": "par", "test_par_data.py": "par"}
"""Modules that run on one worker because they compute the same things into the same per-process
caches (the Boston 5 dealer counts, about 12 s of CPU each time): together they cost 11 s of CPU
less than apart (43 s against 54 s, measured one after the other with ``-n 0``)."""


def _shares_a_wide_fixture(item: pytest.Item) -> bool:
    info: Any = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    return any(defs and defs[-1].scope in ("module", "class", "package") for defs in info.name2fixturedefs.values())


def _seconds(item: pytest.Item) -> float:
    name = getattr(item, "originalname", item.name)
    return SECONDS.get(f"{item.path.name}::{name}", OTHER_S)


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups (its hook, registered later, runs first)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """For pytest-xdist (``-n 2 --dist loadgroup``, the project's default): a module whose tests
    share a module-scoped fixture runs on one worker (its ``xdist_group``), so the fixture is made
    once; every other test is handed out on its own. Units of work (a group, or a test alone) are
    handed out the longest first, so that the workers finish together instead of one running the
    last long test alone (xdist hands out the groups first, the most tests first, then the tests
    alone in this order)."""
    wide = {item.path for item in items if _shares_a_wide_fixture(item)}
    unit: dict[str, str] = {}
    for item in items:
        if item.path.name in SAME_WORKER:
            unit[item.nodeid] = SAME_WORKER[item.path.name]
        elif item.path in wide:
            unit[item.nodeid] = item.path.name
        else:
            continue
        item.add_marker(pytest.mark.xdist_group(unit[item.nodeid]))
    cost: dict[str, float] = {}
    for item in items:
        key = unit.get(item.nodeid, item.nodeid)
        cost[key] = cost.get(key, 0.0) + _seconds(item)
    items.sort(key=lambda item: -cost[unit.get(item.nodeid, item.nodeid)])  # stable: a group stays together


@pytest.fixture
def new_york(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The table's local time is New York's (EST, -0500 in December)."""
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()
