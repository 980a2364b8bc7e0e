"""Benchmark: the seed's arrivals through Airflow on compose, with the resident driver as users get it, with it on
both JIT tiers and with it stopped, side by side in one run (the same images, one stack brought up fresh for each).

For each: `docker compose up --wait` (TIDEMARK_DRIVER_JIT=both for both tiers; the driver stopped once up for no
driver), then `tidemark_arrivals` with
the seed's arrivals and no fault, then the `tidemark_restatement` run the last publish triggers; printed: each task's
seconds and, per arrival, land start -> published. It asserts only that the runs succeeded: the compose test
(test_compose_stack.py) holds what they wrote.

    mvn -B -q package -DskipTests && .venv/airflow/bin/python dags/tests/bench_compose.py [--order driver,both,off]
"""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from stacks import BENCH_MODES, bench_order, print_results, seed_run_seconds  # noqa: E402
from test_compose_stack import ENGINE, Stack  # noqa: E402

def run_dags(stack: Stack, mode: str) -> dict[str, float]:
    """Up, the arrivals, the restatement, down; the seconds worth comparing."""
    t0 = time.monotonic()
    up = stack.up(jit="both" if mode == "both" else None)
    af = stack.airflow
    af.login(stack.values["AIRFLOW_ADMIN_PASSWORD"])
    if mode == "off":
        stack.compose("stop", "driver")
    print(f"== {BENCH_MODES[mode]}: up --wait {up:.0f} s", flush=True)
    try:
        return seed_run_seconds(af)
    finally:
        stack.compose("down", "--volumes", "--remove-orphans", "--timeout", "30", timeout=600, check=False)
        print(f"   (up to down {time.monotonic() - t0:.0f} s)", flush=True)


def main() -> int:
    order = bench_order(__doc__)
    engine = subprocess.run([str(ENGINE), "up"], capture_output=True, text=True, timeout=1800)
    if engine.returncode != 0:
        print(engine.stdout + engine.stderr, file=sys.stderr)
        return 1
    stack = Stack()
    stack.compose("down", "--volumes", "--remove-orphans", "--timeout", "30", timeout=600, check=False)
    t0 = time.monotonic()
    stack.compose("build", timeout=3600)
    print(f"images built in {time.monotonic() - t0:.0f} s", flush=True)
    results = {mode: run_dags(stack, mode) for mode in order}
    print_results("seed on compose, seconds", results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
