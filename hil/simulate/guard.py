"""The refactor guard: the same simulation seeds played on two revisions of the code must write
byte-identical journals (issue 42 item 4: a change that only moves code changes no journal).

Each revision is exported from git (``git archive``) into a temporary folder and its seeds are
played there, in a separate process that imports only that revision's code, so neither side sees
the other. The journals' digests (of their content: :mod:`hil.simulate.journal_digest`, the same
for the same records kept as rows or as compact blocks) are compared seed by seed::

    python -m hil.simulate.guard --base main --seeds 1000
    python -m hil.simulate.guard --base 857116a --head WORKTREE --seeds 40 --game pai_gow

``--head`` is a revision or, when it names a folder, that working tree as it is (uncommitted
changes included). Exit 0 when every journal is identical, 1 when any differs or a seed of one
side fails where the other does not, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from controller.game.registry import table_names

__all__ = ["SideResult", "play_side", "compare", "main"]

GAMES = table_names()
"""Every game dealt at a table, from the game registry: a game added there is guarded."""

# Run inside the exported tree (its own code only): plays the seeds and prints one JSON line a seed,
# each journal's digest that of its content (this tree's journal_digest.py, run as text: an older
# side has no such module), so that a journal kept in another format with the same content is equal.
_PLAYER = (
    Path(__file__).with_name("journal_digest.py").read_text()
    + """
import json, sys
import hil.simulate.run as _run
from hil.simulate.run import run_seeds


class _Content:
    \"\"\"``hashlib`` as the seed runner uses it (``sha256(the journal's bytes).hexdigest()``), of the content.\"\"\"

    class _Digest:
        def __init__(self, raw):
            self.raw = raw

        def hexdigest(self):
            return content_digest(self.raw)

    @staticmethod
    def sha256(raw):
        return _Content._Digest(raw)


_run.hashlib = _Content
game, first, count, rounds, workers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
kinds = [k for k in sys.argv[6].split(",") if k]
def tell(res):
    print(json.dumps({"seed": res.seed, "digest": res.digest, "broken": res.broken}), flush=True)
run_seeds(game, range(first, first + count), kinds, rounds=rounds, workers=workers, progress=tell, resettle=False)
"""
)


@dataclass(frozen=True)
class SideResult:
    """One seed on one side: the journal's digest and the invariant it broke ("" when none)."""

    digest: str
    broken: str


def _materialize(repo: Path, rev: str, tree: Path) -> None:
    """Lay ``rev`` of ``repo`` out as files at ``tree`` (no ``.git``); a folder is copied as it is.

    Both sides are played at the same path: a journal names its table's configuration file by path."""
    if tree.exists():
        shutil.rmtree(tree)
    folder = Path(rev)
    if folder.is_dir():
        shutil.copytree(
            folder, tree, symlinks=True, ignore=shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.db*")
        )
        return
    archive = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", rev], capture_output=True, check=False)
    if archive.returncode != 0:
        raise SystemExit(f"guard: no revision {rev!r} in {repo}: {archive.stderr.decode(errors='replace').strip()}")
    tree.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(tree, filter="data")


def play_side(
    tree: Path, game: str, first: int, count: int, rounds: int, kinds: Sequence[str], workers: int
) -> dict[int, SideResult]:
    """Play seeds ``first`` .. ``first + count - 1`` of ``game`` with the code in ``tree``."""
    env_path = str(tree)
    proc = subprocess.run(
        [sys.executable, "-c", _PLAYER, game, str(first), str(count), str(rounds), str(workers), ",".join(kinds)],
        cwd=tree,
        env={"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin", "PYTHONHASHSEED": "0"},
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"guard: the seeds of {game} failed to run in {tree}:\n{proc.stderr[-2000:]}")
    out: dict[int, SideResult] = {}
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            item = json.loads(line)
            out[int(item["seed"])] = SideResult(str(item["digest"]), str(item["broken"]))
    return out


def compare(base: dict[int, SideResult], head: dict[int, SideResult]) -> list[str]:
    """What differs between the two sides, seed by seed, in words (empty when nothing does)."""
    problems = []
    for seed in sorted(set(base) | set(head)):
        a, b = base.get(seed), head.get(seed)
        if a is None or b is None:
            problems.append(f"seed {seed}: played on one side only")
        elif a.broken != b.broken:
            problems.append(f"seed {seed}: base broke {a.broken or 'nothing'}, head broke {b.broken or 'nothing'}")
        elif a.digest != b.digest:
            problems.append(f"seed {seed}: the journals differ")
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: exit 0 when every journal matches."""
    parser = argparse.ArgumentParser(prog="python -m hil.simulate.guard", description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the revision before the change")
    parser.add_argument("--head", default="HEAD", help="the revision after it, or a working tree's folder")
    parser.add_argument("--game", choices=GAMES, action="append", help="a game (default: every game dealt at a table)")
    parser.add_argument("--seeds", type=int, default=1000, help="seeds a game (default: 1000)")
    parser.add_argument("--first", type=int, default=1, help="the first seed (default: 1)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds a seed (default: 3)")
    parser.add_argument(
        "--faults", required=True, help="the fault kinds, comma-separated and named explicitly (both sides: the same)"
    )
    parser.add_argument("--workers", type=int, default=2, help="processes a side (default: 2)")
    parser.add_argument("--repo", type=Path, default=Path.cwd(), help="the git repository (default: here)")
    args = parser.parse_args(argv)
    if args.seeds < 1 or args.rounds < 1 or args.workers < 1:
        parser.error("--seeds, --rounds and --workers must be at least 1")
    kinds = [k.strip() for k in args.faults.split(",") if k.strip()]
    failed = 0
    games = args.game or list(GAMES)
    played: dict[str, dict[str, dict[int, SideResult]]] = {"base": {}, "head": {}}
    with tempfile.TemporaryDirectory(prefix="tablectl-guard-") as tmp:
        tree = Path(tmp) / "tree"
        for side, rev in (("base", args.base), ("head", args.head)):
            _materialize(args.repo, rev, tree)
            for game in games:
                played[side][game] = play_side(tree, game, args.first, args.seeds, args.rounds, kinds, args.workers)
    for game in games:
        problems = compare(played["base"][game], played["head"][game])
        print(f"{game}: {len(played['base'][game])} seeds, {len(problems)} differing")
        for line in problems[:50]:
            print(f"  {line}")
        failed += len(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
