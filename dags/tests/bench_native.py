"""Benchmark: the seed's arrivals through Airflow on the native stack, with the resident driver and without it, side
by side in one run (one stack on a fresh home for each, as a user starts it: no fault proxy, unlike
test_native_stack.py).

For each: `infra/native/stack up` (with TIDEMARK_DRIVER=off for the second: no driver, a JVM per Spark task), then
`tidemark_arrivals` with the seed's arrivals, then the `tidemark_restatement` run the last publish triggers; printed:
each task's seconds and, per arrival, land start -> published. It asserts only that the runs succeeded: the
native-stack test holds what they wrote.

    mvn -B -q package -DskipTests && .venv/airflow/bin/python dags/tests/bench_native.py [--order driver,off]
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from stacks import Home, bench_order, print_results, seed_run_seconds  # noqa: E402
from test_native_stack import Airflow  # noqa: E402


def run_dags(driver: bool) -> dict[str, float]:
    """Up on a fresh home, the arrivals, the restatement, down; the seconds worth comparing."""
    home = Home("bench-native-" + ("driver" if driver else "off"))
    af = Airflow(home)
    # as the stack starts for a user (infra/airflow/airflow.env): DAGs unpaused
    af.env.pop("AIRFLOW__CORE__DAGS_ARE_PAUSED_AT_CREATION", None)
    if not driver:
        af.env["TIDEMARK_DRIVER"] = "off"
    t0 = time.monotonic()
    try:
        up = af.stack("up")
        assert up.returncode == 0, up.stdout + up.stderr
        mode = "with the resident driver" if driver else "TIDEMARK_DRIVER=off (a JVM per Spark task)"
        print(f"== {mode}: stack up {time.monotonic() - t0:.0f} s", flush=True)
        af.login()
        return seed_run_seconds(af)
    finally:
        af.stack("down")
        home.tidemark("services", "down", check=False)
        print(f"   (up to down {time.monotonic() - t0:.0f} s)", flush=True)


def main() -> int:
    results = {mode: run_dags(mode == "driver") for mode in bench_order(__doc__)}
    print_results("seed on the native stack, seconds", results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
