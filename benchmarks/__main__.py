"""Run the benchmarks: every ``benchmarks/bench_*.py`` module's ``main()``, or those named.

    python -m benchmarks                # all of them
    python -m benchmarks domain store   # bench_domain.py and bench_store.py only

Each module keeps its own defaults; to pass options, run it directly
(``python -m benchmarks.bench_domain --help``).
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path


def available() -> list[str]:
    """The short names (``domain`` for ``bench_domain.py``), sorted."""
    here = Path(__file__).parent
    return sorted(path.stem.removeprefix("bench_") for path in here.glob("bench_*.py"))


def main(names: list[str]) -> int:
    known = available()
    unknown = [name for name in names if name not in known]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; available: {', '.join(known)}")
        return 2
    for name in names or known:
        module = importlib.import_module(f"benchmarks.bench_{name}")
        print(f"# bench_{name}\n", flush=True)
        saved, sys.argv = sys.argv, [f"benchmarks.bench_{name}"]  # its own argparse sees none
        try:
            module.main()
        finally:
            sys.argv = saved
        print(flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
