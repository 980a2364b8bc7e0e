"""Benchmark: the seed's arrivals through Airflow on the native stack, with the resident driver as users get it, with
it on both JIT tiers and without it, side by side in one run (one stack on a fresh home for each, as a user starts
it: no fault proxy, unlike test_native_stack.py).

For each: `infra/native/stack up` (with TIDEMARK_JAVA_OPTS= for both JIT tiers; with TIDEMARK_DRIVER=off for no
driver: a JVM per Spark task), then
`tidemark_arrivals` with the seed's arrivals, then the `tidemark_restatement` run the last publish triggers; printed:
each task's seconds and, per arrival, land start -> published. It asserts only that the runs succeeded: the
native-stack test holds what they wrote.

    mvn -B -q package -DskipTests && .venv/airflow/bin/python dags/tests/bench_native.py [--order driver,both,off]
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from stacks import BENCH_MODES, Home, bench_order, print_results, seed_run_seconds  # noqa: E402
from test_native_stack import Airflow  # noqa: E402


def run_dags(mode: str) -> dict[str, float]:
    """Up on a fresh home, the arrivals, the restatement, down; the seconds worth comparing."""
    home = Home("bench-native-" + mode)
    af = Airflow(home)
    # as the stack starts for a user (infra/airflow/airflow.env): DAGs unpaused
    af.env.pop("AIRFLOW__CORE__DAGS_ARE_PAUSED_AT_CREATION", None)
    if mode == "off":
        af.env["TIDEMARK_DRIVER"] = "off"
    if mode == "both":
        af.env["TIDEMARK_JAVA_OPTS"] = ""
    t0 = time.monotonic()
    try:
        up = af.stack("up")
        assert up.returncode == 0, up.stdout + up.stderr
        print(f"== {BENCH_MODES[mode]}: stack up {time.monotonic() - t0:.0f} s", flush=True)
        af.login()
        return seed_run_seconds(af)
    finally:
        af.stack("down")
        home.tidemark("services", "down", check=False)
        print(f"   (up to down {time.monotonic() - t0:.0f} s)", flush=True)


def main() -> int:
    results = {mode: run_dags(mode) for mode in bench_order(__doc__)}
    print_results("seed on the native stack, seconds", results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
