"""Why the rules import the bots' value functions (kernel/legal.py -> policies/values.py) instead of
being handed them: numba caches a compiled function whose callees are globals, and recompiles
one that takes its callees as arguments in every new process (every worker of every run).

Two listings of the same shape, compiled with cache=True in fresh processes, twice each:
`imported` calls its value function as a module global (as kernel/legal.py does), `handed`
takes it as an argument, and `entry` is a compiled caller that hands the global in (as the game
loop's entry points would). Printed: the first call's time and numba's cache hits in each
process.

    python benchmarks/handed_values.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

MODULE = textwrap.dedent('''
    import numpy as np
    from numba import njit

    @njit(cache=True)
    def value(x, w):
        return x * w + 1.0

    @njit(cache=True)
    def imported(xs, w, out):
        for i in range(xs.shape[0]):
            out[i] = value(xs[i], w)
        return out.sum()

    @njit(cache=True)
    def handed(xs, w, out, fn):
        for i in range(xs.shape[0]):
            out[i] = fn(xs[i], w)
        return out.sum()

    @njit(cache=True)
    def entry(xs, w, out):  # an entry point that hands the global in, as the game loop would
        return handed(xs, w, out, value)
''')

PROBE = textwrap.dedent('''
    import sys, time, numpy as np
    sys.path.insert(0, sys.argv[1])
    import listing
    xs, out = np.arange(1000.0), np.zeros(1000)
    t = time.perf_counter()
    if sys.argv[2] == "imported":
        listing.imported(xs, 0.5, out)
        fn = listing.imported
    elif sys.argv[2] == "handed":
        listing.handed(xs, 0.5, out, listing.value)
        fn = listing.handed
    else:
        listing.entry(xs, 0.5, out)
        fn = listing.entry
    first = time.perf_counter() - t
    hits = sum(fn.stats.cache_hits.values())
    print(f"{first:.3f} {hits}")
''')


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "listing.py").write_text(MODULE)
        env_cache = Path(tmp) / "cache"
        for variant in ("imported", "handed", "entry"):
            for attempt in (1, 2):
                done = subprocess.run([sys.executable, "-c", PROBE, tmp, variant], capture_output=True,
                                      text=True, check=True,
                                      env={"NUMBA_CACHE_DIR": str(env_cache), "PATH": "/usr/bin:/bin"})
                first, hits = done.stdout.split()
                print(f"{variant:9s} process {attempt}: first call {float(first) * 1000:7.1f} ms, "
                      f"cache hits {hits}")


if __name__ == "__main__":
    main()
