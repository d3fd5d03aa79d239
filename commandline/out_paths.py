"""Where a run's outputs may go: an output folder is never inside the folder a run reads nor
above it, and a folder holding the run manifest is a previous run's outputs. Checked on the
command line before Prefect is imported, so this module imports nothing of the run."""

from __future__ import annotations

from pathlib import Path


OUTPUT_MANIFEST = ".sheet2lambda-outputs.json"
"""The manifest every run writes into its output folders (:data:`tasks.write.outputs.MANIFEST`,
named here so that checking a command line imports nothing of the run): a folder holding one
is a previous run's outputs, never a folder of sheets."""


def prefect_home() -> Path:
    """``PREFECT_HOME`` as Prefect reads it (default ``~/.prefect``), resolved."""
    import os

    return Path(os.environ.get("PREFECT_HOME") or Path.home() / ".prefect").expanduser().resolve()


def inside(path: str | Path, folder: str | Path) -> bool:
    """Whether ``path`` is ``folder`` or lies under it (links followed: both resolved)."""
    return Path(path).resolve().is_relative_to(Path(folder).resolve())


def holds_outputs(folder: str | Path) -> bool:
    """Whether ``folder`` is a previous run's output folder: its manifest is there, a regular
    file of this user's (or root's). One another user owns is no run's of ours (:func:`foreign_manifest`)."""
    return (Path(folder) / OUTPUT_MANIFEST).is_file() and foreign_manifest(folder) is None


def foreign_manifest(folder: str | Path) -> str | None:
    """The line for a manifest in ``folder`` that another user (not root) owns, as saved replies'
    owners are judged (:func:`tasks.convert.folder_inputs.reply_not_ours`), else ``None``: a
    co-user's ``{}`` dropped into a shared course made every sweep skip the course for ever
    (attack17 C18); it is not taken, and the folder's sheets are read."""
    import os

    path = Path(folder) / OUTPUT_MANIFEST
    try:
        owner = os.stat(path).st_uid
    except OSError:
        return None
    if owner in (os.getuid(), 0):
        return None
    return f"{path}: a run manifest of another user (uid {owner}), not this user's run: not taken, its sheets read"


def default_folder_out(folder: str, base: str | None = None) -> Path:
    """The folder command's default ``--out``: ``out/<folder's name>/`` under ``base`` (the
    working folder)."""
    return Path(base or ".") / "out" / Path(folder).resolve().name


def out_inside(given: bool, read: str | Path, what: str) -> str:
    """The problem (after ``<out>: ``) of an output folder inside the folder ``read`` that a
    run reads (``what``: ``the folder it reads`` or ``the corpus ROOT``); ``given``: whether
    the user gave that --out (else it is the default)."""
    which = "--out" if given else "the default --out"
    return (f"{which} is inside {what} ({read}), whose next run would read its flags.md and source.md as "
            "sheets: choose another --out")


def out_above(given: bool, read: str | Path, what: str) -> str:
    """The problem (after ``<out>: ``) of an output folder holding the folder ``read`` (see
    :func:`out_apart`)."""
    which = "--out" if given else "the default --out"
    return (f"{which} holds {what} ({read}): its manifest would mark the sheets' own folder as a run's "
            "outputs, refused by the next run: choose a folder beside it")


def out_apart(out: str | Path, read: str | Path) -> bool:
    """Whether the output folder ``out`` is neither inside the folder ``read`` that a run reads
    nor above it: an ``--out`` holding the folder would put the run's manifest above the course,
    and a later folder or sweep run there would take the whole course for a previous run's
    outputs and refuse it."""
    return not inside(out, read) and not inside(read, out)


def out_over_inputs(out: str | Path, folders: dict[str, str | Path | None],
                    files: dict[str, str | Path | None] | None = None, equal_ok: tuple[str, ...] = ()) -> str | None:
    """The problem (after ``<out>: ``) of an output folder that is, or lies inside, a folder the
    run reads (``folders``: option -> folder, e.g. ``{"--replies": …}``; an option in
    ``equal_ok`` may be ``out`` itself: a folder run's ``--replies`` is a previous ``--out``), or
    that is the folder of a file it reads (``files``: ``--filter``, an ``--export`` zip, a
    sweep's ``--baseline``): its outputs would be written among, or over, what it reads. An
    output folder above them is refused too (one rule for every input: attack7 row 42 found
    ``--export`` inside ``--out`` refused while ``--filter`` and ``--replies`` there were taken),
    except for the run's own saved replies, ``OUT/replies`` and what is in it: ``--replies
    out/x/replies --out out/x`` (or ``--filter out/x/replies/filter.lua``) repeats a run, every
    input being read whole before anything in ``--out`` is replaced. An output folder inside
    ``PREFECT_HOME`` (:func:`prefect_home`) is refused too (attack13 C39: a run wrote its set among
    Prefect's cache files and beside the runner's socket). ``None`` when apart (``None`` entries
    and paths that are not there are skipped)."""
    target = Path(out).resolve()
    home = prefect_home()
    if target == home or home in target.parents:
        return (f"--out lies inside PREFECT_HOME ({home}), Prefect's and sheet2lambda's own state (its database, "
                "cached results, the warm runner's socket): choose another --out")
    own = target / "replies"
    for option, given in list(folders.items()) + list((files or {}).items()):
        if given is None or not Path(given).exists():
            continue
        real = Path(given).resolve()
        if real == own or own in real.parents or (real.is_file() and real.parent == target):
            continue  # the run's own replies; a file right in --out: "the folder of" below
        if target in real.parents:
            return (f"{option} {given} lies inside --out, whose outputs the run replaces: only the run's own "
                    "replies/ may be read from there (--replies OUT/replies repeats a run): choose another --out, "
                    "or move it out")
    for option, folder in folders.items():
        if folder is None or not Path(folder).is_dir():
            continue
        real = Path(folder).resolve()
        if target == real and option not in equal_ok:
            return (f"--out is the folder {option} names ({folder}): the run would write its outputs over what it "
                    "reads: choose another --out")
        if real in target.parents:
            return (f"--out is inside the folder {option} names ({folder}): the run would write its outputs among "
                    "what it reads: choose another --out")
    for option, file in (files or {}).items():
        if file is None or not Path(file).exists() or Path(file).is_dir():
            continue
        if Path(file).resolve().parent == target:
            return (f"--out is the folder of {option} {file}: the run would write its outputs beside what it reads: "
                    "choose another --out")
    return None
