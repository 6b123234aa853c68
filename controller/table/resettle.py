"""Re-settling finished rounds from their records in a separate process: the check that what
the table paid is what `tablectl settle` pays for the round as recorded.

The table settles with the same code as `tablectl settle` (one settlement code), so comparing
the two in one process proves little; a separate process reading only the record (from recall,
or the record the table wrote) catches a record that does not say everything the payment
depended on, and any state the table's process carried from round to round.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tempfile
import threading
from collections import deque

__all__ = ["canonical", "Verifier"]


def canonical(settlement_json: object) -> str:
    """A digest of a settlement's canonical JSON (what the table paid, compared with a re-settlement)."""
    text = json.dumps(settlement_json, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


class Verifier:
    """Re-settles round records in a separate process (``tablectl settle --lines -``) and
    compares each result with what the table paid; ``close`` waits and returns the counts."""

    def __init__(self) -> None:
        self._errors = tempfile.TemporaryFile(mode="w+")  # a file, so a flood of problems never blocks it
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "controller", "settle", "--lines", "-"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._errors,
            text=True,
            bufsize=1 << 16,
            process_group=0,  # out of the terminal's Ctrl-C: it ends when its input does (the caller's stop)
        )
        self.expected: deque[tuple[int, str]] = deque()
        self.checked = 0
        self.differ: list[int] = []
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.stderr = ""

    def submit(self, number: int, record: dict[str, object], expected: str) -> None:
        """Queue round ``number``'s record; ``expected`` is the digest of the settlement the table paid."""
        with self._lock:
            self.expected.append((number, expected))
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(record) + "\n")
        except OSError:  # the process has gone: the round stays unanswered, so it counts as differing
            pass

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._lock:
                number, expected = self.expected.popleft()
            self.checked += 1
            if canonical(json.loads(line)) != expected:
                self.differ.append(number)

    def close(self) -> tuple[int, list[int]]:
        """Finish: (rounds re-settled, numbers of the rounds whose re-settlement differs)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        self.proc.wait()
        self._reader.join()
        self.proc.stdout.close()
        self._errors.seek(0)
        self.stderr = self._errors.read()
        self._errors.close()
        with self._lock:
            self.differ.extend(n for n, _ in self.expected)  # never answered
        return self.checked, sorted(self.differ)
