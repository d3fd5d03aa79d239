"""Lay out the platform's evaluation functions at their pins for the tests (issue 26):

    uv run python -m tests.evalfns.fetch --git DIR OUT

For each row of ``tests/evalfns/pins.tsv`` it finds the repository's git data under ``DIR``
(``DIR/<owner>+<name>/repo``, ``DIR/<owner>+<name>``, ``DIR/<name>``: a clone or a bare
mirror, as you made it with git), writes the tree of the pinned commit into ``OUT/<name>/``
(``git archive``, replacing what was there) and the commit into ``OUT/<name>/.pin``. Then
``SHEET2LAMBDA_EVALFN_SRC=OUT`` lets the tests run them. Nothing of theirs is copied into this
repository; a missing repository or commit is one line and exit 1.
"""

from __future__ import annotations

import argparse
import io
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

from tests.evalfns import Pin, pins


def git_dir(base: Path, pin: Pin) -> Path | None:
    """The git data of ``pin``'s repository under ``base``, or ``None``."""
    owner, name = pin.repository.split("/")
    for candidate in (base / f"{owner}+{name}" / "repo", base / f"{owner}+{name}", base / name):
        for g in (candidate / ".git", candidate):
            if (g / "HEAD").is_file() and (g / "objects").is_dir():
                return g
    return None


def lay_out(pin: Pin, git: Path, out: Path) -> None:
    """Write ``pin``'s tree at its commit into ``out/<name>`` with its ``.pin``; raises
    ``RuntimeError`` naming the repository when git cannot."""
    done = subprocess.run(["git", f"--git-dir={git}", "archive", "--format=tar", pin.commit],
                          capture_output=True, timeout=600)
    if done.returncode:
        raise RuntimeError(f"{pin.repository}: no commit {pin.commit[:12]} in {git} "
                           f"({done.stderr.decode(errors='replace').strip()[-200:]})")
    dest = out / pin.name
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as tar:
        tar.extractall(dest, filter="data")
    (dest / ".pin").write_text(pin.commit + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--git", type=Path, required=True, help="folder holding a clone or mirror per repository")
    parser.add_argument("out", type=Path, help="folder to lay the functions out in (SHEET2LAMBDA_EVALFN_SRC)")
    args = parser.parse_args(argv)
    for pin in pins().values():
        git = git_dir(args.git, pin)
        if git is None:
            print(f"{args.git}: no clone of {pin.repository} (looked for {pin.repository.replace('/', '+')} "
                  f"and {pin.repository.split('/')[1]})", file=sys.stderr)
            return 1
        try:
            lay_out(pin, git, args.out)
        except RuntimeError as e:
            print(e, file=sys.stderr)
            return 1
        print(f"{pin.name:27} {pin.commit[:12]}  {pin.licence}")
    print(f"export SHEET2LAMBDA_EVALFN_SRC={args.out.resolve()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
