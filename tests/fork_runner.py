"""``python -m controller ARGS`` without starting an interpreter for each run: a server process
imports the project's modules once, then forks a child per run. The child is a process of its
own, as ``subprocess.run`` would give: its own working folder, resource limits, standard input,
output and error (files, real descriptors), exit status (negative: the signal that ended it), and
a traceback printed as the interpreter prints one. The bad-input corpus runs some 240 commands;
each spent most of its CPU on starting Python and importing (tests/test_bad_input.py).

The server is ``python tests/fork_runner.py``; it reads one JSON request a line on its standard
input and answers each with one line, once that run's child has ended.
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import resource
import runpy
import signal
import subprocess
import sys
import threading
import traceback
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("controller", "drivers", "hil")


class ForkRunner:
    """One server: :meth:`run` one command at a time (a thread each, for several at once)."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=ROOT,
            text=True,
        )
        self.lock = threading.Lock()

    def run(
        self,
        argv: list[str],
        cwd: Path,
        stdin: bytes,
        limits: dict[str, int],
        timeout_s: int,
    ) -> subprocess.CompletedProcess[bytes]:
        """``python -m controller *argv`` in ``cwd`` with ``stdin``, under ``limits`` (RLIMIT name: soft
        and hard limit) and killed after ``timeout_s`` (SIGALRM): its exit status and output."""
        files = {name: cwd.parent / f".{cwd.name}.{name}" for name in ("stdin", "stdout", "stderr")}
        files["stdin"].write_bytes(stdin)
        request = {"argv": argv, "cwd": str(cwd), "limits": limits, "timeout_s": timeout_s}
        request |= {name: str(path) for name, path in files.items()}
        assert self.proc.stdin is not None and self.proc.stdout is not None
        with self.lock:
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
            answer = self.proc.stdout.readline()
        if not answer:
            raise RuntimeError(f"the fork server ended (exit {self.proc.wait()})")
        result = subprocess.CompletedProcess(
            [sys.executable, "-m", "controller", *argv],
            int(json.loads(answer)["returncode"]),
            files["stdout"].read_bytes(),
            files["stderr"].read_bytes(),
        )
        for path in files.values():
            path.unlink()
        return result

    def close(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        self.proc.wait(60)
        self.proc.stdout.close()


def _import_everything() -> None:
    for name in PACKAGES:
        package = importlib.import_module(name)
        for info in pkgutil.walk_packages(package.__path__, f"{name}."):
            if not info.name.endswith("__main__"):
                importlib.import_module(info.name)


def _child(request: dict[str, Any]) -> None:
    """In the forked child: become the command's process, run it, never return."""
    code = 1
    try:
        os.chdir(request["cwd"])
        for name, value in request["limits"].items():
            resource.setrlimit(getattr(resource, name), (value, value))
        for fd, name, flags in ((0, "stdin", os.O_RDONLY), (1, "stdout", os.O_WRONLY), (2, "stderr", os.O_WRONLY)):
            opened = os.open(request[name], flags | (os.O_CREAT | os.O_TRUNC if fd else 0), 0o600)
            os.dup2(opened, fd)
            os.close(opened)
        sys.stdin = open(0, closefd=False)  # the process's own standard streams
        sys.stdout = open(1, "w", closefd=False)
        sys.stderr = open(2, "w", closefd=False)
        signal.alarm(int(request["timeout_s"]))
        sys.path[0] = request["cwd"]  # as `python -m` puts its working folder first
        sys.argv = [str(ROOT / "controller" / "__main__.py"), *request["argv"]]
        try:
            runpy.run_module("controller", run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as exc:
            if exc.code is None or isinstance(exc.code, int):
                code = exc.code or 0
            else:  # SystemExit("message"), as the interpreter treats it
                print(exc.code, file=sys.stderr)
                code = 1
        except BaseException:
            traceback.print_exc()
            code = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        os._exit(code)


def serve() -> None:
    """The server's loop: a request a line, a fork a request, an answer once the child has ended."""
    _import_everything()
    for line in sys.stdin:
        request = json.loads(line)
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            _child(request)
        _, status = os.waitpid(pid, 0)
        sys.stdout.write(json.dumps({"returncode": os.waitstatus_to_exitcode(status)}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    sys.path[0] = str(ROOT)  # this folder (tests/) is not on the path of `python -m controller`
    serve()
