"""Where the kernel spends its time: Linux `perf` samples of N games of one policy, mapped to the
compiled kernel's functions and hottest instructions.

numba's code is loaded from the on-disk cache into anonymous memory, so `perf report` shows it as
unnamed [JIT] addresses. This script captures each cached object file as numba loads it (a hook
on CPUCodeLibrary._unserialize), asks numba for the game loop's entry address, and with `nm` and
`objdump` attributes every sample to a compiled function and an instruction offset. Most rules
functions are inlined into the game loop's entry point (`play_chunk_policies`, ...), so the
per-instruction view is where hot spots show, and how many KiB of code hold the samples (against
the 32 KiB L1 instruction cache): look for `call`s left in hot code and for branches that collect samples (mispredictions). It needs perf, nm and objdump on PATH and a
warm cache (run any game first).

With `--lines` it attributes the samples to source lines and to the rules and policy functions
they come from, inlined or not: the child compiles the kernel with numba's debug line tables into a
cache folder of its own (LINES_CACHE; the first time takes about 35 minutes, later runs load it),
with each instruction's source file folded into its line number (numba records only the line,
under the outer function's file, so an inlined callee's lines would read against the wrong
file). numba's debug mode would also turn on bounds checks and longer variable lifetimes; the
child turns both off, so the build differs from `simcell run`'s by its line tables only (it
played random games within 3% of the normal build's speed on one core, 2026-12-01).

This VM offers no hardware counters (`perf stat` prints "not supported" for cycles, branch
misses and cache misses), so samples come from a timer: they land on the instruction after the
one the processor waited on, often the target of a mispredicted branch (a loop's head).

    python benchmarks/perf_kernel.py [--policy planner] [--games 30000] [--players 5] [--top 25]
                                     [--function NAME] [--listing FROM TO] [--lines]
"""

from __future__ import annotations

import argparse
import bisect
import collections
import os
import pickle
import re
import subprocess
import sys
import tempfile
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "simcell"
LINES_CACHE = Path.home() / ".cache" / "simcell" / "perf-lines"
FILE_RADIX = 10_000  # a line-table entry is file_id * FILE_RADIX + line


def _layer_files() -> list[Path]:
    """The numba-layer source files, in file-id order."""
    return sorted(list((PACKAGE / "kernel").glob("*.py")) + list((PACKAGE / "policies").glob("*.py")))


def _fold_files_into_lines() -> None:
    """Make numba's debug line table name each instruction's own source file (as a file id
    folded into the line number): numba marks a location by line only, under the compiled
    function's file, and its IR inlining keeps each inlined instruction's own file and line."""
    import numba.core.debuginfo as debuginfo

    files = {str(f): i for i, f in enumerate(_layer_files())}
    mark = debuginfo.DIBuilder.mark_location

    def mark_location(self, builder, line):
        lower = sys._getframe(1).f_locals.get("self")  # numba's Lower, whose .loc is the instruction's
        loc = getattr(lower, "loc", None)
        if loc is not None and loc.line == line and loc.filename:
            line = files.get(str(Path(loc.filename).resolve()), FILE_RADIX - 1) * FILE_RADIX + line
        return mark(self, builder, line)

    debuginfo.DIBuilder.mark_location = mark_location

    # numba's debug mode also turns on bounds checks and longer variable lifetimes (different,
    # slower code, and a compile of hours): keep the line table only
    from numba.core.cpu import CPUTargetOptions

    finalize = CPUTargetOptions.finalize

    def line_table_only(self, flags, options):
        finalize(self, flags, options)
        if flags.debuginfo:
            flags.boundscheck = False
            flags.dbg_extend_lifetimes = False
            flags.dbg_directives_only = True

    CPUTargetOptions.finalize = line_table_only


def _child(policy: str, games: int, players: int, out: Path) -> None:
    """Play the games in this process and write the loaded objects and entry address to `out`."""
    if os.environ.get("NUMBA_DEBUGINFO") == "1":
        _fold_files_into_lines()
    import numba.core.codegen as codegen

    objects: dict[str, bytes] = {}
    unserialize = codegen.CPUCodeLibrary._unserialize.__func__

    def capture(cls, cg, state):
        library = unserialize(cls, cg, state)
        name, kind, data = state
        if kind == "object":
            objects[name] = bytes(data[0])
        return library

    codegen.CPUCodeLibrary._unserialize = classmethod(capture)

    from simcell.config.load import load_default_game
    from simcell.play.game import PLAY_CHUNK
    from simcell.policies.registry import game_loop
    from simcell.runner.fields import homogeneous
    from simcell.runner.games import play_chunk

    game = load_default_game()
    seating = homogeneous(policy, players)
    play_chunk(game, players, 1, 0, 2, seating)
    play_chunk(game, players, 1, 0, games, seating, total_games=games, blocks=64)
    entries = {}
    for cres in PLAY_CHUNK[game_loop(seating.player_policy)].overloads.values():
        entries[cres.library.name] = (cres.fndesc.llvm_func_name,
                                      cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name))
    paths = []
    for i, (name, blob) in enumerate(objects.items()):
        path = out / f"object{i}.o"
        path.write_bytes(blob)
        paths.append((name, str(path)))
    (out / "objects.pkl").write_bytes(pickle.dumps((paths, entries)))


def _symbols(path: str) -> dict[str, tuple[int, int]]:
    syms = {}
    for line in subprocess.run(["nm", "-S", path], capture_output=True, text=True).stdout.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tTwW":
            syms[parts[3]] = (int(parts[0], 16), int(parts[1], 16))
    return syms


def _short(symbol: str) -> str:
    """simcell.play.turns.play_on from its mangled name."""
    parts, i = [], 3 if symbol.startswith("_ZN") else 0
    while i < len(symbol) and symbol[i].isdigit():
        j = i
        while symbol[j].isdigit():
            j += 1
        n = int(symbol[i:j])
        parts.append(symbol[j:j + n])
        i = j + n
    return ".".join(parts) or symbol[:60]


def _line_table(path: str, lo: int, hi: int) -> tuple[list[int], list[int]]:
    """(addresses, folded lines) of the object's DWARF line rows within [lo, hi), by address."""
    text = subprocess.run(["objdump", "--dwarf=decodedline", path], capture_output=True,
                          text=True).stdout
    rows = {}
    for line in text.splitlines():
        m = re.match(r"\S+\s+(\d+)\s+(0x[0-9a-f]+)", line)
        if m:
            address = int(m.group(2), 16)
            if lo <= address < hi and int(m.group(1)) > 0:
                rows[address] = int(m.group(1))
    addresses = sorted(rows)
    return addresses, [rows[a] for a in addresses]


def _enclosing_functions(path: Path) -> list[str]:
    """name[line] = the innermost function (def) a source line of `path` belongs to."""
    import ast

    source = path.read_text(encoding="utf-8")
    names = ["(module)"] * (source.count("\n") + 2)
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef):
            for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                names[line] = node.name  # ast.walk meets outer functions first
    return names


def _print_lines(hits: collections.Counter, path: str, off: int, size: int, top: int) -> None:
    """The function's samples by rules or policy function and by source line (--lines)."""
    addresses, lines = _line_table(path, off, off + size)
    if not addresses:
        print("\nno line table in this object: --lines needs the kernel built with line tables")
        return
    files = _layer_files()
    names = {i: _enclosing_functions(f) for i, f in enumerate(files)}
    by_line, by_function = collections.Counter(), collections.Counter()
    for o, n in hits.items():
        k = bisect.bisect_right(addresses, o + off) - 1
        folded = lines[k] if k >= 0 else 0
        fid, line = divmod(folded, FILE_RADIX)
        if 0 < fid < len(files):  # id 0 (kernel/__init__.py) has no code: an unfolded line
            label = f"{files[fid].parent.name}/{files[fid].name}"
            function = names[fid][line] if line < len(names[fid]) else "?"
        else:
            label, function = "(other)", "?"
        by_line[(label, line)] += n
        by_function[(label, function)] += n
    total = sum(hits.values())
    print("\nby rules or policy function, inlined ones included (share of its samples)")
    for (label, function), n in by_function.most_common(top):
        print(f"  {100 * n / total:5.1f}%  {label}:{function}")
    print("\nby source line (share of its samples)")
    for (label, line), n in by_line.most_common(top):
        fid = next((i for i, f in enumerate(files) if f"{f.parent.name}/{f.name}" == label), None)
        code = ""
        if fid is not None:
            source = files[fid].read_text(encoding="utf-8").splitlines()
            code = source[line - 1].strip()[:70] if 0 < line <= len(source) else ""
        print(f"  {100 * n / total:5.1f}%  {label}:{line:<5d} {code}")


def _print_footprint(hits: collections.Counter, total: int, size: int) -> None:
    """How much code holds the samples: the fewest 64-byte lines (cache lines) that hold half,
    80%, 90%, 95% and 99% of them. Against the processor's 32 KiB L1 instruction cache, this
    says whether instruction fetch could be what the hot code waits on."""
    lines = collections.Counter()
    for o, n in hits.items():
        lines[o // 64] += n
    print(f"\nhot code: {size:,} bytes in the function, {len(lines)} of its 64-byte lines sampled")
    marks = [0.5, 0.8, 0.9, 0.95, 0.99]
    held = 0
    for i, (_, n) in enumerate(lines.most_common()):
        held += n
        while marks and held >= marks[0] * total:
            print(f"  {100 * marks.pop(0):3.0f}% of its samples in {i + 1:4d} lines "
                  f"({64 * (i + 1) / 1024:5.1f} KiB)")


def _analyse(out: Path, data: Path, top: int, listing_range: tuple[int, int] | None,
             function: str | None = None, lines: bool = False) -> None:
    paths, entries = pickle.loads((out / "objects.pkl").read_bytes())
    ips = [int(x, 16) for x in subprocess.run(["perf", "script", "-i", str(data), "-F", "ip"],
                                              capture_output=True, text=True).stdout.split()]
    ranges = []  # (start, end, symbol, object path, symbol offset in the object)
    for name, path in paths:
        if name not in entries:
            continue
        syms = _symbols(path)
        entry_name, entry_addr = entries[name]
        base = entry_addr - syms[entry_name][0]
        ranges += [(base + off, base + off + size, s, path, off) for s, (off, size) in syms.items()]
    ranges.sort()
    starts = [r[0] for r in ranges]
    by_function = collections.Counter()
    offsets = collections.defaultdict(collections.Counter)
    for ip in ips:
        k = bisect.bisect_right(starts, ip) - 1
        if k >= 0 and ip < ranges[k][1]:
            by_function[k] += 1
            offsets[k][ip - ranges[k][0]] += 1
    jit = sum(by_function.values())
    print(f"{len(ips):,} samples, {jit:,} in the compiled kernel "
          f"(the rest: Python start-up, imports, libm, the OS)")
    print("\nby compiled function (share of kernel samples):")
    for k, n in by_function.most_common(12):
        print(f"  {100 * n / jit:5.1f}%  {_short(ranges[k][2])}")
    k = by_function.most_common(1)[0][0]
    if function:  # the hottest compiled function whose name contains `function`
        named = [j for j, _ in by_function.most_common() if function in _short(ranges[j][2])]
        if not named:
            sys.exit(f"no compiled function with samples is named like {function!r}")
        k = named[0]
    _, _, symbol, path, off = ranges[k]
    size = ranges[k][1] - ranges[k][0]
    listing = subprocess.run(["objdump", "-d", "--no-show-raw-insn", f"--start-address={off}",
                              f"--stop-address={off + size}", path], capture_output=True, text=True).stdout
    text = {}
    for line in listing.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s*(.*)", line)
        if m:
            text[int(m.group(1), 16) - off] = re.sub(r"<_ZN[^>]*?(\+0x[0-9a-f]+)?>", r"<\1>", m.group(2))
    hits = offsets[k]
    total = sum(hits.values())
    _print_footprint(hits, total, size)
    windows = collections.Counter()
    for o, n in hits.items():
        windows[o // 512] += n
    print(f"\n{_short(symbol)}: hottest 512-byte windows (share of its samples)")
    for w, n in windows.most_common(8):
        print(f"  {100 * n / total:5.1f}%  +{w * 512:#x}")
    print(f"\nhottest instructions of {_short(symbol)} (samples, offset, instruction)")
    for o, n in hits.most_common(top):
        print(f"  {n:6d}  +{o:#7x}  {text.get(o, '?')[:90]}")
    if lines:
        _print_lines(hits, path, off, size, top)
    if listing_range:
        lo, hi = listing_range
        print(f"\n{_short(symbol)} from +{lo:#x} to +{hi:#x} (samples, offset, instruction)")
        for o in sorted(t for t in text if lo <= t < hi):
            print(f"  {hits.get(o, 0):6d}  +{o:#7x}  {text[o][:90]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policy", default="planner")
    parser.add_argument("--games", type=int, default=30_000)
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--function", default=None,
                        help="list this compiled function (a part of its name, e.g. play_chunk) "
                             "instead of the hottest")
    parser.add_argument("--listing", nargs=2, metavar=("FROM", "TO"),
                        help="also print every instruction of the hottest function between two "
                             "hex offsets, with its samples (e.g. --listing 0x4900 0x4b00)")
    parser.add_argument("--lines", action="store_true",
                        help="attribute the samples to source lines and functions (a kernel "
                             f"built with line tables, cached in {LINES_CACHE})")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.policy, args.games, args.players, Path(args.child))
        return
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        data = out / "perf.data"
        cmd = ["perf", "record", "-q", "-F", "4999", "-o", str(data), sys.executable, os.path.abspath(__file__),
               "--policy", args.policy, "--games", str(args.games), "--players", str(args.players),
               "--child", tmp]
        env = dict(os.environ)
        if args.lines:
            env |= {"NUMBA_DEBUGINFO": "1", "SIMCELL_CACHE_DIR": str(LINES_CACHE)}
            print(f"a kernel with line tables, from {LINES_CACHE} (compiled there the first time)",
                  flush=True)
        subprocess.run(cmd, check=True, env=env)
        print(f"perf profile: {args.policy} in every seat, {args.players} players, {args.games:,} games, one process")
        listing = tuple(int(x, 16) for x in args.listing) if args.listing else None
        _analyse(out, data, args.top, listing, args.function, args.lines)


if __name__ == "__main__":
    main()
