"""Every bad input in ``tests/bad_input/`` (see ``make_corpus.py`` there, which wrote it) gets a
clear error: the exit status the case names (2 for bad input, 1 for a journal that is damaged or
was changed), a message naming the place, no traceback, within bounded time and memory (resource
limits on the subprocess), and every journal read byte-for-byte unchanged, with nothing written
beside it."""

from __future__ import annotations

import json
import os
import queue
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fork_runner import ForkRunner

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "bad_input"
CASES: list[dict[str, Any]] = json.loads((CORPUS / "cases.json").read_text())

MEMORY_LIMIT = 1024 * 1024 * 1024
"""Address space of one command (the interpreter and its libraries take some 300 MiB of it)."""
CPU_SECONDS = 60
"""CPU time of one command (each takes well under a second; the alias bomb took 77 s)."""


LIMITS = {"RLIMIT_AS": MEMORY_LIMIT, "RLIMIT_CPU": CPU_SECONDS}
TIMEOUT_S = 600
PARALLEL = 4


def test_the_corpus_is_large_and_covers_every_kind_of_input() -> None:
    assert len(CASES) >= 120
    kinds = {c["name"].split("-")[0] for c in CASES}
    assert kinds >= {"config", "record", "rank", "args", "journal"}
    assert len({c["name"] for c in CASES}) == len(CASES)


@dataclass
class Outcome:
    """One case run: its folder, the journals copied there, the files there before, the result."""

    folder: Path
    originals: dict[Path, bytes]
    before: list[str]
    result: subprocess.CompletedProcess[bytes]


def _fill(text: str, folder: Path) -> str:
    return text.replace("{case}", str(CORPUS)).replace("{tmp}", str(folder)).replace("{root}", str(ROOT))


def _run(case: dict[str, Any], folder: Path, runners: queue.Queue[ForkRunner]) -> Outcome:
    folder.mkdir(parents=True)
    originals: dict[Path, bytes] = {}
    for source, name, *mode in case.get("files", []):
        target = folder / name
        content = (CORPUS / "journals" / source).read_bytes()
        if name.endswith(".yaml"):
            content = content.replace(b"{root}", str(ROOT).encode())
        target.write_bytes(content)
        os.chmod(target, mode[0] if mode else 0o600)
        if name.endswith(".db"):
            originals[target] = content
    before = sorted(p.name for p in folder.iterdir())
    stdin = (CORPUS / case["stdin"]).read_bytes() if "stdin" in case else b""
    runner = runners.get()
    try:
        result = runner.run([_fill(a, folder) for a in case["argv"]], folder, stdin, LIMITS, TIMEOUT_S)
    finally:
        runners.put(runner)
    return Outcome(folder, originals, before, result)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    """Every case, run a few at a time, each in a process of its own with its own limits (forked
    from a server that has imported the project once: tests/fork_runner.py)."""
    root = tmp_path_factory.mktemp("bad_input")
    runners: queue.Queue[ForkRunner] = queue.Queue()
    for _ in range(PARALLEL):
        runners.put(ForkRunner())
    try:
        with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
            futures = {c["name"]: pool.submit(_run, c, root / c["name"], runners) for c in CASES}
            return {name: f.result() for name, f in futures.items()}
    finally:
        while not runners.empty():
            runners.get().close()


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_bad_input_gets_a_clear_error(case: dict[str, Any], outcomes: dict[str, Outcome]) -> None:
    outcome = outcomes[case["name"]]
    result = outcome.result
    err = result.stderr.decode("utf-8", "replace")
    shown = f"exit {result.returncode}\nstderr:\n{err[-3000:]}\nstdout:\n{result.stdout[-1000:]!r}"
    assert "Traceback" not in err, shown
    assert result.returncode == case["exit"], shown
    for words in case["expect"]:
        assert _fill(words, outcome.folder) in err, f"{words!r} not in the message\n{shown}"
    assert len(err) < 20_000, "the message is not a few clear lines"
    if not case.get("writer"):
        for path, content in outcome.originals.items():
            assert path.read_bytes() == content, f"{path.name} was changed by a reader"
        assert sorted(p.name for p in outcome.folder.iterdir()) == outcome.before, "a reader wrote files there"


def test_every_file_a_case_names_is_committed() -> None:
    for case in CASES:
        named = [a for a in case["argv"] if a.startswith("{case}/")] + [case.get("stdin")]
        named += ["journals/" + f[0] for f in case.get("files", [])]
        for name in filter(None, named):
            assert (CORPUS / name.removeprefix("{case}/")).exists(), f"{case['name']}: {name}"


def test_the_corpus_runs_on_one_worker(request: pytest.FixtureRequest, outcomes: dict[str, Outcome]) -> None:
    """Under the README's `-n 2 --dist loadgroup`, the module's tests form one group (its fixture
    is made once): xdist sees a group by the suffix it adds to the test id (tests/conftest.py; a
    pytest that ignores it, 9.2, made every such fixture twice)."""
    if hasattr(request.config, "workerinput") and getattr(request.config.option, "loadgroup", False):
        assert request.node.nodeid.endswith("@test_bad_input.py"), request.node.nodeid
