"""The `skirmish` command group and what its commands share: exit statuses, the bounds of
the numbers an option takes, the parsing of `--set`, and the handling of bad input,
faults and Ctrl-C (`Group`). Every command registers on `main` from its own module;
sim.cli imports them all, and is the program's entry point.
"""
from __future__ import annotations

import errno
from pathlib import Path

import click

from sim.errors import ScenarioError
from sim.terminal import echo

EXIT_BAD_INPUT = 2
EXIT_NOT_REACHED = 3  # ran fine, but a --precision, a tune target or an optimize search did not finish

EXIT_STATUSES = ("Exit status: 0 done; 1 a fault in the simulator; 2 bad input (the message says what to "
                 "change); 3 finished, but `--precision` was not reached within `--max`, `tune` found "
                 "the target unreachable in its range, or `optimize` hit its search limit while a side "
                 "was still improving.")

# The bounds of the scenario's `run:` block (sim/scenario.py RUN_FIELDS), so a number
# typed on the command line cannot ask for more than a file may: past them a run would
# build its chunk list for hours or overflow a NumPy integer.
MAX_SKIRMISHES, MAX_ROUNDS, MAX_SEED = 10**9, 10**6, 2**63 - 1
MAX_JOBS = 256  # worker processes; more only exhausts the machine's process table
SKIRMISHES = click.IntRange(1, MAX_SKIRMISHES)
ROUNDS = click.IntRange(1, MAX_ROUNDS)
SEED = click.IntRange(0, MAX_SEED)
JOBS = click.IntRange(1, MAX_JOBS)


def note_cores(jobs: int, scheduler: str | None = None) -> None:
    """One line when -j asks for more workers than this machine has cores: as many as the
    cores play (sim.backends.local_workers). A cluster (--scheduler) has cores of its own."""
    from sim.backends import cores
    if not scheduler and jobs > cores():
        echo(f"note: -j {jobs} on a machine with {cores()} cores: {cores()} workers play (more would only "
             "take turns on the cores; the result is the same).", err=True)


def scenario_files(paths) -> list[Path]:
    """Expand folders into the scenario files they hold (recursively, sorted)."""
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(list(p.rglob("*.yaml")) + list(p.rglob("*.yml")))
            if not found:
                raise ScenarioError("holds no scenario files (*.yaml).", file=str(p))
            files.extend(found)
        else:
            files.append(p)
    # The same file named twice (or by a folder and by name) is one scenario, played once.
    unique = {}
    for f in files:
        try:
            unique.setdefault(f.resolve(), f)
        except (RuntimeError, OSError) as e:  # a symlink loop (RuntimeError before Python 3.13)
            raise ScenarioError(f"{f}: cannot be followed ({e}); give the scenario file itself.") from None
    return list(unique.values())


def parse_assignments(items, option: str, form: str, example: str) -> dict:
    """`--set` / `--vary` items "PATH=VALUE" as {path: value}; ScenarioError naming the form."""
    from sim.overrides import split_assignment
    out = {}
    for item in items:
        pair = split_assignment(item)
        if pair is None:
            raise ScenarioError(f"{option} '{item}' needs the form {form}, e.g. {example}.")
        out[pair[0].strip()] = pair[1]
    return out


def parse_sets(items) -> dict:
    return parse_assignments(items, "--set", "PATH=VALUE", "--set sides.yeti.combatants[Yeti].defense=4")


# Whether the CLI is the process itself (`skirmish ...`) rather than called by another
# program (CliRunner, a notebook); only then may an interrupted run end the process hard.
STANDALONE = {"process": False}

EXIT_FAULT, EXIT_INTERRUPTED = 1, 130
# An operating-system error on a path is bad input; these are faults of the machine.
_FAULT_ERRNOS = {errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.ENOMEM, errno.EROFS}


class Group(click.Group):
    """Turns ScenarioError into the one-paragraph message and exit status 2; an
    operating-system error on a file into one paragraph (2, or 1 for a full or failing
    disk); Ctrl-C outside a run into status 130."""

    def main(self, args=None, *a, **kw):
        if args is None:  # reading sys.argv: started as a program, not invoked by a caller
            STANDALONE["process"] = True
            # At once, not when the command starts: a Ctrl-C while click reads the
            # options gave a traceback.
            from sim.cli_scale import end_process, handle_interrupts, interrupts_end_quietly
            handle_interrupts()
            status = 0
            try:
                super().main(args, *a, **kw)
            except SystemExit as e:
                status = e.code
            finally:
                interrupts_end_quietly()
            end_process(status)
        return super().main(args, *a, **kw)

    def parse_args(self, ctx, args):
        ctx.meta["skirmish_argv"] = list(args)  # before click consumes them: a report's replay recipe
        return super().parse_args(ctx, args)

    def invoke(self, ctx):
        from sim.recipe import recording
        try:
            with recording(ctx.meta.get("skirmish_argv", [])):
                return super().invoke(ctx)
        except ScenarioError as e:
            echo(f"error: {e}", err=True)
            ctx.exit(EXIT_BAD_INPUT)
        except click.UsageError as e:  # a subcommand's options: one paragraph too, not click's usage block
            where = (f"skirmish {e.ctx.info_name} --help" if e.ctx is not None and e.ctx is not ctx
                     else "skirmish --help")
            echo(f"error: {e.format_message()} See `{where}`.", err=True)
            ctx.exit(EXIT_BAD_INPUT)
        except OSError as e:
            where = f"{e.filename}: " if e.filename else ""
            echo(f"error: {where}{e.strerror or e}; check the path (and free space), then run again.",
                       err=True)
            ctx.exit(EXIT_FAULT if e.errno in _FAULT_ERRNOS else EXIT_BAD_INPUT)
        except KeyboardInterrupt:
            from sim.cli_scale import say_interrupted, settle_after_interrupt
            settle_after_interrupt()
            say_interrupted("interrupted. No file was left half-written.")
            ctx.exit(EXIT_INTERRUPTED)


@click.group(cls=Group)
@click.version_option(package_name="skirmish-sim")
def main():
    """Monte Carlo balance simulator for tabletop skirmish combat.

    Start with `skirmish new RULESET FILE`, check with `skirmish validate FILE`, play
    with `skirmish run FILE`.

    \b
    Exit status: 0 done; 1 a fault in the simulator; 2 bad input (the message
    says what to change); 3 finished, but --precision was not reached within --max,
    or tune found the target unreachable in its range.
    """


def writable_file_option(ctx, param, value):
    """Option callback: refuse a file path in a folder that cannot be written, while the
    options are read (before any work)."""
    if value:
        from sim.io import check_output_folder, check_output_name
        check_output_name(value, param.opts[0])
        check_output_folder(Path(value).parent, param.opts[0])
    return value


def writable_folder_option(ctx, param, value):
    if value:
        from sim.io import check_output_folder
        check_output_folder(value, param.opts[0])
    return value
