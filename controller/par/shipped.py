"""The par results shipped with tablectl for the shipped paytables (``controller/par/data/``), so
that nothing shipped is computed at a table, a bench or a floor.

Run ``python -m controller.par.shipped`` from a checkout to compute them (about a minute of CPU:
Boston 5 20 s, Mississippi Stud 4 s, pai gow's hand classes 35 s) and write the folder again
(stale files removed); ``--check`` computes them and exits 1 when a shipped file is missing,
damaged or differs (tests/test_par_data.py checks the same). Shipped: Mississippi Stud for every
shipped main paytable, Boston 5 for every shipped ante bonus paytable with the wagers of each
shipped Boston 5 config, the three-card hand counts of both games' bonuses, and the pai gow hand
classes (no paytable: every pai gow table).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from controller.configuration import config_dir, load_paytables, load_table
from controller.par._cache import content_key, decode_entry, encode_entry, file_name, unpack_array

if TYPE_CHECKING:
    from controller.configuration import Paytable
    from controller.hands import HandRules

__all__ = ["Shipped", "DATA", "shipped_results", "payloads_agree", "main"]

DATA = Path(__file__).resolve().parent / "data"
"""The shipped data's folder in this checkout."""


@dataclass(frozen=True)
class Shipped:
    """One shipped result: its kind, the inputs it is computed from, and how to compute it."""

    kind: str
    inputs: dict[str, object]
    compute: Callable[[], object]
    what: str

    @property
    def key(self) -> str:
        return content_key(self.kind, self.inputs)

    @property
    def name(self) -> str:
        return file_name(self.kind, self.key)


def shipped_results() -> Iterator[Shipped]:
    """Every result shipped for the shipped paytables and configs."""
    from controller.par import _solved
    from controller.par._kept import SOLVER_VERSIONS

    paytables = load_paytables(config_dir() / "paytables")
    for p in sorted(paytables.values(), key=lambda p: p.name):
        if p.game == "mississippi_stud" and p.spot == "main":

            def ms(p: Paytable = p) -> object:
                from controller.par.mississippi import solve

                return _solved.ms_payload(solve(p))

            yield Shipped("mississippi", _solved.mississippi_inputs(p), ms, f"Mississippi Stud {p.name}")
    wagers = set()
    for path in sorted([*config_dir().glob("*.yaml"), *(config_dir() / "bench").glob("*.yaml")]):
        table = load_table(path)
        if table.game == "boston5":
            _, k, pays = _solved.b5_args(table)
            wagers.add((k, pays))
    for p in sorted(paytables.values(), key=lambda p: p.name):
        if p.game == "boston5" and p.spot == "ante_bonus":
            for k, pays in sorted(wagers):

                def b5(p: Paytable = p, k: int = k, pays: float = pays) -> object:
                    from controller.par.boston5 import solve

                    return _solved.b5_payload(solve(p, k, pays))

                yield Shipped("boston5", _solved.boston5_inputs(p, k, pays), b5, f"Boston 5 {p.name}, {k}x, {pays:g}")

    from controller.hands import BOSTON5, MISSISSIPPI_STUD
    from controller.par._three_card import three_card_inputs

    for rules in (BOSTON5, MISSISSIPPI_STUD):

        def three(rules: HandRules = rules) -> object:
            from controller.par._three_card import count_three_card

            return sorted([c.value, r, n] for (c, r), n in count_three_card(rules).items())

        yield Shipped("three_card_counts", three_card_inputs(rules), three, f"three-card counts, {rules.game}")

    def pg() -> object:
        from controller.par.pai_gow import class_counts, pg_payload

        return pg_payload(class_counts())

    yield Shipped("pai_gow_classes", {"version": SOLVER_VERSIONS["pai_gow_classes"]}, pg, "pai gow classes")


def payloads_agree(a: object, b: object) -> bool:
    """Whether two payloads are the same result: decisions and counts exactly, figures to 1e-9
    relative (a float sum may round differently on another CPU's vector unit)."""
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return False
        if set(a) == {"dtype", "shape", "data"}:
            return _arrays_agree(a, b)
        return all(payloads_agree(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(payloads_agree(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) or isinstance(b, float):
        return (
            isinstance(a, int | float)
            and isinstance(b, int | float)
            and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
        )
    return bool(a == b)


def _arrays_agree(a: Mapping[str, object], b: Mapping[str, object]) -> bool:
    import numpy as np

    x, y = unpack_array(a), unpack_array(b)
    if x.dtype != y.dtype or x.shape != y.shape:
        return False
    if x.dtype.kind == "f":
        return bool(np.allclose(x, y, rtol=1e-9, atol=1e-12))
    return bool((x == y).all())


def main(argv: list[str] | None = None) -> int:
    """Write (or with ``--check``, check) the shipped par data."""
    p = argparse.ArgumentParser(prog="python -m controller.par.shipped", description=__doc__)
    p.add_argument("--check", action="store_true", help="check the shipped files against the solvers, write nothing")
    args = p.parse_args(argv)
    results = list(shipped_results())
    bad = 0
    for r in results:
        print(f"{r.what}: computing ...", file=sys.stderr, flush=True)
        payload = r.compute()
        path = DATA / r.name
        if args.check:
            try:
                ok = payloads_agree(decode_entry(path.read_bytes(), r.kind, r.key), payload)
            except (OSError, ValueError) as exc:
                print(f"{path.name}: {exc}", file=sys.stderr)
                ok = False
            print(f"{path.name}: {'ok' if ok else 'DIFFERS from the solver'}")
            bad += not ok
        else:
            DATA.mkdir(exist_ok=True)
            path.write_bytes(encode_entry(r.kind, r.key, r.inputs, payload))
            print(f"{path.name}: written ({path.stat().st_size:,} bytes)")
    if not args.check:
        keep = {r.name for r in results}
        for stale in DATA.glob("*.json.gz"):
            if stale.name not in keep:
                stale.unlink()
                print(f"{stale.name}: removed (no longer shipped)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
