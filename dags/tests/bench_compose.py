"""Benchmark: the seed's arrivals through Airflow on compose, with the resident driver and with it stopped, side by
side in one run (the same images, one stack brought up fresh for each).

For each: `docker compose up --wait` (with the driver stopped once up, for the second), then `tidemark_arrivals` with
the seed's arrivals and no fault, then the `tidemark_restatement` run the last publish triggers; printed: each task's
seconds and, per arrival, land start -> published. It asserts only that the runs succeeded: the compose test
(test_compose_stack.py) holds what they wrote.

    mvn -B -q package -DskipTests && .venv/airflow/bin/python dags/tests/bench_compose.py [--order driver,off]
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from stacks import seconds  # noqa: E402
from test_compose_stack import ENGINE, Stack  # noqa: E402

ARRIVALS = 4


def run_dags(stack: Stack, driver: bool) -> dict[str, float]:
    """Up, the arrivals, the restatement, down; the seconds worth comparing."""
    t0 = time.monotonic()
    up = stack.up()
    af = stack.airflow
    af.login(stack.values["AIRFLOW_ADMIN_PASSWORD"])
    if not driver:
        stack.compose("stop", "driver")
    mode = "with the resident driver" if driver else "driver stopped (a spark-submit per Spark task)"
    print(f"== {mode}: up --wait {up:.0f} s", flush=True)
    try:
        af.wait(lambda: {d["dag_id"] for d in af.call("GET", "/api/v2/dags")["dags"]}
                >= {"tidemark_arrivals", "tidemark_restatement", "tidemark_maintenance"}, 300)
        af.pause("tidemark_maintenance", True)
        run_id = af.call("POST", "/api/v2/dags/tidemark_arrivals/dagRuns",
                         {"logical_date": None, "conf": {"scenario": "seed"}})["dag_run_id"]
        state = af.finished("tidemark_arrivals", run_id, 3600)
        tis = af.tasks("tidemark_arrivals", run_id)
        assert state["state"] == "success", {t: ti["state"] for t, ti in tis.items()}
        out: dict[str, float] = {}
        for k in range(1, ARRIVALS + 1):
            land, streams, publish = (tis[f"arrival_{k}.{t}"] for t in ("land", "streams", "publish"))
            out[f"arrival {k}: land start -> published"] = seconds(publish, "end_date") - seconds(land, "start_date")
            for t, ti in (("land", land), ("streams", streams), ("publish", publish)):
                out[f"arrival {k}: {t}"] = ti["duration"]
        runs = af.wait(lambda: af.runs("tidemark_restatement"), 900)
        restate = af.finished("tidemark_restatement", runs[0]["dag_run_id"], 2400)
        rtis = af.tasks("tidemark_restatement", runs[0]["dag_run_id"])
        assert restate["state"] == "success", {t: ti["state"] for t, ti in rtis.items()}
        stages = ("plan", "write", "audit", "merge", "tag", "publish_main")
        for t in stages:
            out[f"restatement: {t}"] = rtis[t]["duration"]
        out["restatement: the stages' task seconds"] = sum(rtis[t]["duration"] for t in stages)
        out["restatement: first start -> last end"] = (max(seconds(rtis[t], "end_date") for t in stages)
                                                      - min(seconds(rtis[t], "start_date") for t in stages))
        return out
    finally:
        stack.compose("down", "--volumes", "--remove-orphans", "--timeout", "30", timeout=600, check=False)
        print(f"   (up to down {time.monotonic() - t0:.0f} s)", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--order", default="driver,off",
                        help="which goes first (default: driver,off); one of them alone runs only that stack")
    order = parser.parse_args().order.split(",")
    if not order or not set(order) <= {"driver", "off"} or len(set(order)) != len(order):
        parser.error("--order: driver and off, one or both, comma-separated")
    engine = subprocess.run([str(ENGINE), "up"], capture_output=True, text=True, timeout=1800)
    if engine.returncode != 0:
        print(engine.stdout + engine.stderr, file=sys.stderr)
        return 1
    stack = Stack()
    stack.compose("down", "--volumes", "--remove-orphans", "--timeout", "30", timeout=600, check=False)
    t0 = time.monotonic()
    stack.compose("build", timeout=3600)
    print(f"images built in {time.monotonic() - t0:.0f} s", flush=True)
    results = {mode: run_dags(stack, mode == "driver") for mode in order}
    if len(results) == 1:
        (mode, only), = results.items()
        print(f"\n{'seed on compose, seconds':48s} {mode:>8s}")
        for name, v in only.items():
            print(f"{name:48s} {v:8.1f}")
        return 0
    print(f"\n{'seed on compose, seconds':48s} {'driver':>8s} {'stopped':>8s} {'ratio':>6s}")
    for name in results["driver"]:
        d, s = results["driver"][name], results["off"][name]
        print(f"{name:48s} {d:8.1f} {s:8.1f} {d / s if s else 0:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
