"""The install hint of an error for a missing extra names the install that applies: the checkout
(editable), the wheel, a source folder, or a package index (issue #31). The wheel's case is also
checked on a real install by tests/test_install.py."""

from __future__ import annotations

import pytest

from controller.host._install_hint import install_command

PY = "/srv/venv/bin/python"


@pytest.mark.parametrize(
    ("installed", "direct_url", "expected"),
    [
        # pip install -e CHECKOUT writes this direct_url.json (PEP 610)
        (
            True,
            {"url": "file:///srv/tablectl", "dir_info": {"editable": True}},
            f"{PY} -m pip install -e '/srv/tablectl[floor]'",
        ),
        # pip install tablectl-0.1.0-py3-none-any.whl
        (
            True,
            {"url": "file:///srv/dist/tablectl-0.1.0-py3-none-any.whl", "archive_info": {}},
            f"{PY} -m pip install '/srv/dist/tablectl-0.1.0-py3-none-any.whl[floor]'",
        ),
        # pip install CHECKOUT (a plain install from a folder), a path with a space in it
        (True, {"url": "file:///srv/my%20tablectl", "dir_info": {}}, f"{PY} -m pip install '/srv/my tablectl[floor]'"),
        # from a package index: no direct_url.json
        (True, None, f"{PY} -m pip install 'tablectl[floor]'"),
        # not installed: run from a checkout
        (False, None, f"{PY} -m pip install -e '.[floor]' (in the checkout)"),
    ],
    ids=["editable", "wheel", "folder", "index", "checkout"],
)
def test_the_hint_names_the_install_that_applies(
    installed: bool, direct_url: dict[str, object] | None, expected: str
) -> None:
    assert install_command("floor", installed, direct_url, PY) == expected


def test_several_extras_and_a_python_path_that_needs_quoting() -> None:
    hint = install_command("web,floor", True, None, "/srv/my venv/bin/python")
    assert hint == "'/srv/my venv/bin/python' -m pip install 'tablectl[web,floor]'"
