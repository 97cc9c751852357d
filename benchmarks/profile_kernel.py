"""Where a compiled kernel spends its time: perf samples named by function and source line.

    python -m benchmarks.profile_kernel SCENARIO [-n 100000] [--repeat 20] [--lines] [--top 30]

perf sees no symbols in Numba's machine code, so the profiled process writes them itself:
Numba hands each cached library's object code to LLVM once and forgets it, so the hook
that hands it over is wrapped to keep a copy. From the copy's symbol table and one
symbol's address, every function's address follows, and `/tmp/perf-PID.map` names them
for `perf report`. With `--lines` the rules are compiled afresh with line information
(`NUMBA_DEBUGINFO=1`, in a cache folder of their own, so the normal cache is untouched)
and `addr2line` maps each sample to its source line. Optimised code moves instructions
between neighbouring lines, so read the line table by region, not by the single line.

The profiled work is `ruleset.play` on chunks of `-n` skirmishes, `--repeat` times, as a
worker plays them. Imports, setup and any compile are sampled too, but the shares in both
tables are of the samples in compiled code, which leaves them out.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


# --- the profiled process ------------------------------------------------------------

def _keep_object_code() -> None:
    """Wrap Numba's object-cache hook so a loaded library keeps its object code."""
    from numba.core import codegen

    original = codegen.CPUCodeLibrary._object_getbuffer_hook.__func__

    def keep(cls, ll_module):
        buf = original(cls, ll_module)
        library = getattr(ll_module, "_CPUCodeLibrary__library", None)
        if buf and library is not None:
            library._kept_object = buf
        return buf

    codegen.CPUCodeLibrary._object_getbuffer_hook = classmethod(keep)


def _libraries():
    from numba.core.registry import CPUDispatcher
    seen = set()
    for name, module in list(sys.modules.items()):
        if not name.startswith("sim") or module is None:
            continue
        for value in vars(module).values():
            if isinstance(value, CPUDispatcher) and id(value) not in seen:
                seen.add(id(value))
                for cres in value.overloads.values():
                    # A link-only library (sim/link_only.py) never became machine code itself.
                    obj = getattr(cres.library, "_kept_object", None) or getattr(cres.library, "_compiled_object", None)
                    if obj:
                        yield cres.library, obj


def _text_symbols(obj_path: str) -> list[tuple[int, int, str]]:
    out = subprocess.run(["objdump", "-t", obj_path], capture_output=True, text=True, check=True).stdout
    rows = []
    for line in out.splitlines():
        parts = line.split()
        if " F " in line and "text" in line and len(parts) >= 5:
            rows.append((int(parts[0], 16), int(parts[-2], 16), parts[-1]))
    return rows


def short_name(symbol: str) -> str:
    """lifeforce.kturn.take_turn from Numba's mangled name."""
    prefix = ""
    if symbol.startswith("cfunc."):
        prefix, symbol = "cfunc.", symbol[len("cfunc."):]
    if not symbol.startswith("_ZN"):
        return prefix + symbol
    rest, parts = symbol[3:], []
    while rest[:1].isdigit():
        digits = re.match(r"\d+", rest).group(0)
        size, rest = int(digits), rest[len(digits):]
        parts.append(rest[:size])
        rest = rest[size:]
    return prefix + ".".join(p for p in parts if p not in ("sim", "rulesets"))


def write_symbol_map(folder: Path) -> None:
    """/tmp/perf-PID.map for perf, and folder/objects.json (base, size, object file)."""
    entries, objects = [], []
    for k, (library, obj) in enumerate(_libraries()):
        path = folder / f"object-{k}.o"
        path.write_bytes(obj)
        rows = _text_symbols(str(path))
        base = None
        for offset, _, symbol in rows:
            try:
                address = library.get_pointer_to_function(symbol)
            except Exception:  # a symbol the engine does not export: try the next one
                address = 0
            if address:
                base = address - offset
                break
        if base is None or not rows:
            continue
        objects.append((base, max(o + s for o, s, _ in rows), str(path)))
        entries += [f"{base + o:x} {s:x} {short_name(sym)}" for o, s, sym in rows]
    Path(f"/tmp/perf-{os.getpid()}.map").write_text("\n".join(entries) + "\n")
    (folder / "objects.json").write_text(json.dumps(objects))


def child(scenario: str, n: int, repeat: int, folder: Path) -> None:
    _keep_object_code()
    from sim.scenario import load_scenario
    scen = load_scenario(scenario)
    seed, max_rounds = int(scen.run["seed"]), int(scen.run["max_rounds"])
    ruleset = scen.ruleset
    setup = ruleset.build(scen)
    ruleset.warm(setup)
    ruleset.play(setup, seed, 0, 2000, max_rounds)
    write_symbol_map(folder)
    for k in range(repeat):
        ruleset.play(setup, seed, k * n, n, max_rounds)


# --- reading the samples -------------------------------------------------------------

def samples(data: Path) -> tuple[str, collections.Counter]:
    out = subprocess.run(["perf", "script", "-i", str(data), "-F", "pid,ip"], capture_output=True, text=True,
                         check=True).stdout
    ips, pid = collections.Counter(), ""
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2:
            pid = parts[0]
            ips[int(parts[1], 16)] += 1
    return pid, ips


def by_object(ips: collections.Counter, objects) -> dict[str, collections.Counter]:
    found = collections.defaultdict(collections.Counter)
    for ip, count in ips.items():
        for base, size, path in objects:
            if base <= ip < base + size:
                found[path][ip - base] += count
                break
    return found


def function_table(ips, map_file: Path) -> list[tuple[str, int]]:
    spans = []
    for line in map_file.read_text().splitlines():
        start, size, name = line.split(" ", 2)
        spans.append((int(start, 16), int(size, 16), name))
    counts = collections.Counter()
    for ip, count in ips.items():
        name = next((nm for s, z, nm in spans if s <= ip < s + z), None)
        if name:
            counts[name] += count
    return counts.most_common()


def line_table(found: dict[str, collections.Counter]) -> collections.Counter:
    lines = collections.Counter()
    for path, offsets in found.items():
        keys = sorted(offsets)
        out = subprocess.run(["addr2line", "-a", "-j", ".ltext", "-e", path] + [hex(k) for k in keys],
                             capture_output=True, text=True, check=True).stdout.splitlines()
        current = None
        for row in out:
            if row.startswith("0x"):
                current = int(row, 16)
            elif current is not None:
                where = row.split(" (")[0].replace(str(ROOT / "sim") + "/", "")
                lines[where] += offsets[current]
                current = None
    return lines


def report(folder: Path, data: Path, top: int, lines: bool) -> str:
    pid, ips = samples(data)
    objects = json.loads((folder / "objects.json").read_text())
    found = by_object(ips, objects)
    jit = sum(sum(c.values()) for c in found.values())
    out = [f"{jit:,} samples in compiled code ({sum(ips.values()):,} in all)", "", "| function | share |", "|---|---:|"]
    out += [f"| {name} | {100 * c / jit:.1f}% |" for name, c in function_table(ips, Path(f"/tmp/perf-{pid}.map"))[:top]]
    if lines:
        out += ["", "| source line | share |", "|---|---:|"]
        out += [f"| {where} | {100 * c / jit:.1f}% |" for where, c in line_table(found).most_common(top)]
    return "\n".join(out)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenario")
    ap.add_argument("-n", type=int, default=100_000, help="skirmishes a chunk")
    ap.add_argument("--repeat", type=int, default=20, help="chunks played while sampling")
    ap.add_argument("--lines", action="store_true", help="compile with line information and add a line table")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return child(args.scenario, args.n, args.repeat, Path(args.child))
    if not shutil.which("perf") or not shutil.which("addr2line"):
        sys.exit("profile_kernel needs perf (Debian's linux-perf) and addr2line (binutils) on the PATH; "
                 "install them, or time the kernel with benchmarks/bench_*.py instead.")
    folder = Path(tempfile.mkdtemp(prefix="profile-kernel-"))
    env = dict(os.environ)
    if args.lines:
        env["NUMBA_DEBUGINFO"] = "1"
        env["SKIRMISH_CACHE_DIR"] = str(Path.home() / ".cache" / "skirmish-profile-lines")
    data = folder / "perf.data"
    subprocess.run(["perf", "record", "-q", "-F", "2999", "-e", "cpu-clock", "-o", str(data), "--",
                    sys.executable, "-m", "benchmarks.profile_kernel", args.scenario, "-n", str(args.n),
                    "--repeat", str(args.repeat), "--child", str(folder)], cwd=ROOT, env=env, check=True)
    print(report(folder, data, args.top, args.lines))


if __name__ == "__main__":
    main()
