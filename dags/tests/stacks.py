"""What the stack tests share: homes with embedded services, Airflow's REST API, the demo's tables to compare with,
and main's commit log read from Nessie. test_native_stack.py drives the native stack with them, test_compose_stack.py
the docker-compose stack."""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import random
import re
import shlex
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from conftest import ROOT, WORK
from tidemark_lib import tidemark_cli

# settings of the machine that the homes below keep; every other TIDEMARK_* / AIRFLOW* of the caller is left out
KEPT = ("TIDEMARK_JAR_DIR", "TIDEMARK_NESSIE_JAVA", "TIDEMARK_PYTHON", "TIDEMARK_AIRFLOW_VENV", "TIDEMARK_DRIVER")
TIMINGS = WORK / "timings.txt"
TABLES = {t: cols for t, cols in json.loads((Path(__file__).parent / "pipeline_tables.json").read_text()).items()
          if not t.startswith("_")}
# DemoIT's tables of `tidemark demo`, with the SHA-256 of the jar that made them
DEMO_TABLES = WORK / "demo-tables.json"
SHOTS = ROOT / "target" / "screenshots"


def alive(pid: int) -> bool:
    """Whether process pid runs (a zombie has ended; 0 is no process)."""
    try:
        return pid > 0 and Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def free_ports(n: int, taken: tuple[int, ...] = ()) -> list[int]:
    """n distinct free ports, none of `taken`: the sockets stay bound until all are chosen, so no two are the same.
    They are taken below the kernel's ephemeral range, where neither a socket bound to port 0 nor the local end of an
    outgoing connection lands: a port found free here and bound by a service seconds later is not taken meanwhile by
    the Java tests running alongside (it was, once: "Port ... seems to be in use" from the native stack's Nessie)."""
    try:
        below = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        below = 32768
    start = max(1024, below - 12000)
    with contextlib.ExitStack() as held:
        ports: list[int] = []
        for _ in range(10000):
            if len(ports) == n:
                break
            port = random.randrange(start, below)
            if port in taken or port in ports:
                continue
            s = held.enter_context(socket.socket())
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            ports.append(port)
        assert len(ports) == n, f"no {n} free ports between {start} and {below}"
        return ports


def log(line: str) -> None:
    """Figures for the report: appended to target/airflow-tests/timings.txt (./run-tests prints it)."""
    with TIMINGS.open("a") as f:
        f.write(line + "\n")


class Home:
    """A tidemark home with its own embedded services on free ports."""

    def __init__(self, name: str):
        self.dir = WORK / name
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir.mkdir(parents=True)
        self.ports = tuple(free_ports(3))
        self.nessie_port, management_port, s3_port = self.ports
        self.env = {
            **{k: v for k, v in os.environ.items() if k in KEPT or not k.startswith(("TIDEMARK_", "AIRFLOW"))},
            "TIDEMARK_HOME": str(self.dir),
            "TIDEMARK_NESSIE_PORT": str(self.nessie_port),
            "TIDEMARK_NESSIE_MANAGEMENT_PORT": str(management_port),
            "TIDEMARK_S3_PORT": str(s3_port),
        }

    def tidemark(self, *args: str, ref: str | None = None, check: bool = True) -> str:
        env = dict(self.env, **({"TIDEMARK_NESSIE_REF": ref} if ref else {}))
        p = subprocess.run(["bash", "-c", tidemark_cli(*(shlex.quote(a) for a in args))], env=env, capture_output=True,
                           text=True, timeout=900)
        if check and p.returncode != 0:
            raise AssertionError(f"tidemark {' '.join(args)} exited {p.returncode}: {p.stderr.strip()[-2000:]}")
        return p.stdout

    def sql_json(self, query: str, ref: str | None = None) -> list[dict]:
        return json.loads(self.tidemark("sql", "--format", "json", query, ref=ref))

    def nessie(self, path: str) -> dict:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.nessie_port}/api/v2/{path}", timeout=30) as r:
            return json.load(r)

    def log(self, ref: str) -> list[dict]:
        """The commit metadata of ref's history, newest first (every page), with its properties as a dict (Nessie's
        API v2 gives each property's values as a list, allProperties)."""
        entries, token = [], None
        while True:
            page = self.nessie(f"trees/{ref}/history?max-records=200"
                               + (f"&page-token={urllib.parse.quote(token)}" if token else ""))
            entries += [dict(e["commitMeta"], properties={k: v[-1] for k, v in e["commitMeta"].get(
                "allProperties", {}).items()}) for e in page["logEntries"]]
            if not page.get("hasMore"):
                return entries
            token = page["token"]

    def snapshot_id(self, ref: str, table: str) -> int:
        """The Iceberg snapshot a table is at on ref, as Nessie holds it."""
        return self.nessie(f"trees/{ref}/contents/{table}")["content"]["snapshotId"]

    def references(self) -> dict[str, tuple[str, str]]:
        return {r["name"]: (r["type"], r["hash"]) for r in self.nessie("trees")["references"]}

    def tables(self, ref: str = "main") -> dict[str, list[str]]:
        """Everything the pipeline wrote on ref (main: what readers see), as sorted JSON rows per table (see
        pipeline_tables.json)."""
        query = " UNION ALL ".join(f"SELECT '{t}' AS t, to_json(struct({cols})) AS j FROM {t}"
                                   for t, cols in TABLES.items())
        return by_table(self.sql_json(query, ref=ref))


def by_table(rows: list[dict]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {t: [] for t in TABLES}
    for row in rows:
        out[row["t"]].append(row["j"])
    return {t: sorted(rows) for t, rows in out.items()}


class AirflowApi:
    """Airflow's REST API (v2) with a JWT of user admin: the calls the stack tests make, as a person's script would."""

    def __init__(self, url: str):
        self.url = url
        self.token = None

    def login(self, password: str) -> None:
        body = {"username": "admin", "password": password}
        self.token = self.call("POST", "/auth/token", body, auth=False)["access_token"]

    def call(self, method: str, path: str, body: dict | None = None, auth: bool = True) -> dict:
        req = urllib.request.Request(self.url + path, method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        if auth:
            req.add_header("Authorization", f"Bearer {self.token}")
        # reads are retried: on a loaded 2-core machine the API server sometimes answers after minutes
        for attempt in range(1 if method != "GET" else 4):
            try:
                with urllib.request.urlopen(req, timeout=120) as r:
                    return json.load(r)
            except urllib.error.HTTPError as e:
                body = e.read().decode()
                raise AssertionError(f"{method} {path}: {e.code} {body[:500]}{self.server_log(body)}") from e
            except (TimeoutError, urllib.error.URLError, ConnectionError) as e:
                if method != "GET" or attempt == 3:
                    raise AssertionError(f"{method} {path}: {e}") from e
                time.sleep(5)
        raise AssertionError("unreachable")

    def server_log(self, body: str) -> str:
        """What the server logged about the error a 500 names ("... look for ID NqHkmWV2"), where a test can read it."""
        return ""

    def tasks(self, dag_id: str, run_id: str) -> dict[str, dict]:
        path = f"/api/v2/dags/{dag_id}/dagRuns/{urllib.parse.quote(run_id, safe='')}/taskInstances?limit=100"
        return {t["task_id"]: t for t in self.call("GET", path)["task_instances"]}

    def run(self, dag_id: str, run_id: str) -> dict:
        return self.call("GET", f"/api/v2/dags/{dag_id}/dagRuns/{urllib.parse.quote(run_id, safe='')}")

    def runs(self, dag_id: str) -> list[dict]:
        return self.call("GET", f"/api/v2/dags/{dag_id}/dagRuns?order_by=-run_after")["dag_runs"]

    def wait(self, what, timeout: float, step: float = 2.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            got = what()
            if got:
                return got
            time.sleep(step)
        raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what.__doc__ or what}")

    def finished(self, dag_id: str, run_id: str, timeout: float) -> dict:
        def done():
            """the DAG run to finish"""
            r = self.run(dag_id, run_id)
            return r if r["state"] in ("success", "failed") else None

        return self.wait(done, timeout)

    def pause(self, dag_id: str, paused: bool) -> None:
        self.call("PATCH", f"/api/v2/dags/{dag_id}", {"is_paused": paused})

    def log_task_instances(self, dag_id: str, run_id: str) -> dict[str, dict]:
        """The run's task instances in the order they started, each on a line of timings.txt; returns them."""
        tis = self.tasks(dag_id, run_id)
        for tid in sorted(tis, key=lambda t: tis[t]["start_date"] or "~"):
            ti = tis[tid]
            log(f"  {tid:22s} {ti['state'] or '-':10s} try {ti['try_number']}  {ti['duration'] or 0:6.1f} s")
        return tis


def published_arrivals(home: Home, feeds: tuple[str, ...] = ("events", "companies")) -> dict[int, int]:
    """How many publish commits on main take in each arrival: a commit that names in its message and in its properties
    tidemark.arrivals.<feed> the arrivals of `feeds` it took in ("publish events arrival 3, companies arrival 3 from
    ingest: ...", the seed's; "publish companies arrival 4 from ingest: ..." when only one feed landed one), with the
    property tidemark.published, the staging branch's commit it made main's; each arrival number counted once per
    commit, of any of the feeds; every one names a commit of the staging branch."""
    staged = {c["hash"] for c in home.log("ingest")}
    out: dict[int, int] = {}
    for meta in home.log("main"):
        props = meta.get("properties", {})
        published = props.get("tidemark.published")
        if published is None:
            continue
        assert published in staged, f"main's commit {meta['hash']} publishes {published}, not a commit of ingest"
        named = {feed: props[f"tidemark.arrivals.{feed}"] for feed in feeds if f"tidemark.arrivals.{feed}" in props}
        if not named:
            continue
        said = ", ".join(f"{feed} arrival{'' if value.isdigit() else 's'} {value}" for feed, value in named.items())
        assert meta["message"].startswith(f"publish {said} from ingest: "), meta["message"]
        for n in {n for value in named.values() for n in _arrival_numbers(value)}:
            out[n] = out.get(n, 0) + 1
    return out


def _arrival_numbers(described: str) -> list[int]:
    """The numbers of "3", "1-3" or "1,4" (tidemark's description of arrivals)."""
    out = []
    for part in described.split(","):
        first, _, last = part.strip().partition("-")
        out.extend(range(int(first), int(last or first) + 1))
    return out


def seconds(ti: dict, field: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(ti[field].replace("Z", "+00:00")).timestamp()


class Demo:
    """What `tidemark demo` makes, on main (the demo publishes each arrival and the restatement): DemoIT's tables
    when the Java tests ran the demo with the same jar (read through `tidemark sql` on main), else the demo
    run here on a home of its own when its tables are asked for, after the Airflow run (alongside, it would take a
    core from the arrivals the test times). ./run-tests runs the Java tests at the same time as this one and names
    their process in TIDEMARK_JAVA_TESTS_PID: DemoIT's tables are then awaited while it lives."""

    def __init__(self):
        WORK.mkdir(parents=True, exist_ok=True)
        self.proc = self.home = None
        self.started = time.monotonic()
        self.jar = hashlib.sha256((ROOT / "jobs" / "target" / "tidemark.jar").read_bytes()).hexdigest()
        self.java_tests = int(os.environ.get("TIDEMARK_JAVA_TESTS_PID") or 0)
        if self.demoit_rows() is not None:
            log(f"tidemark demo: DemoIT's tables ({DEMO_TABLES.name}, made by the same jar)")
        elif alive(self.java_tests):
            log("tidemark demo: DemoIT's tables awaited (the Java tests run alongside)")

    def demoit_rows(self) -> list[dict] | None:
        """DemoIT's rows, if its file was made by this jar (it is written whole, by a rename)."""
        if DEMO_TABLES.is_file():
            made = json.loads(DEMO_TABLES.read_text())
            if made["jar_sha256"] == self.jar:
                return made["rows"]
        return None

    def start(self) -> None:
        self.home = Home("demo-home")
        self.proc = subprocess.Popen(["bash", "-c", "exec " + tidemark_cli("demo")], env=self.home.env,
                                     stdout=open(self.home.dir / "demo.log", "w"), stderr=subprocess.STDOUT)

    def tables(self) -> dict[str, list[str]]:
        if self.proc is None:
            waited = time.monotonic()
            while (rows := self.demoit_rows()) is None and alive(self.java_tests):
                time.sleep(5)
            if rows is not None:
                if self.java_tests:
                    log(f"tidemark demo: DemoIT's tables after waiting {time.monotonic() - waited:.0f} s")
                return by_table(rows)
            log("tidemark demo: " + ("the Java tests ended without DemoIT's tables; " if self.java_tests else "")
                + "the demo runs here")
            self.start()
        assert self.proc.wait(timeout=1500) == 0, (self.home.dir / "demo.log").read_text()[-3000:]
        log(f"tidemark demo (here): {time.monotonic() - self.started:.0f} s")
        refs = self.home.references()
        assert any(t == "TAG" and r.startswith("restated-") for r, (t, _) in refs.items())
        # main is where the demo published everything it staged
        assert published_arrivals(self.home) == {k: 1 for k in range(1, 5)}
        assert self.home.log("main")[0]["properties"]["tidemark.published"] == refs["ingest"][1]
        return self.home.tables("main")

    def close(self):
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.home.tidemark("services", "down", check=False)


def seed_run_seconds(af: AirflowApi, arrivals: int = 4) -> dict[str, float]:
    """tidemark_arrivals with the seed's arrivals, then the tidemark_restatement run its last publish starts, on a
    stack whose Airflow answers at af (tidemark_maintenance paused): the seconds the benchmarks print, per task and
    per arrival (land start -> published). Asserts only that both runs succeeded."""
    af.wait(lambda: {d["dag_id"] for d in af.call("GET", "/api/v2/dags")["dags"]}
            >= {"tidemark_arrivals", "tidemark_restatement", "tidemark_maintenance"}, 300)
    af.pause("tidemark_maintenance", True)
    # a stack may pause new DAGs (the native-stack test's does)
    af.pause("tidemark_arrivals", False)
    af.pause("tidemark_restatement", False)
    run_id = af.call("POST", "/api/v2/dags/tidemark_arrivals/dagRuns",
                     {"logical_date": None, "conf": {"scenario": "seed"}})["dag_run_id"]
    state = af.finished("tidemark_arrivals", run_id, 3600)
    tis = af.tasks("tidemark_arrivals", run_id)
    assert state["state"] == "success", {t: ti["state"] for t, ti in tis.items()}
    out: dict[str, float] = {}
    for k in range(1, arrivals + 1):
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


BENCH_MODES = {"driver": "the resident driver (the JIT's first tier, the default)",
               "both": "the resident driver on both JIT tiers",
               "off": "no driver (a JVM or a spark-submit per Spark task)"}


def bench_order(doc: str) -> list[str]:
    """The benchmarks' --order: which stacks (BENCH_MODES), in the order given."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--order", default="driver,both,off",
                        help="which stacks, in this order (default: driver,both,off): driver (the resident driver as "
                             "users get it), both (the driver on both JIT tiers), off (no driver)")
    order = parser.parse_args().order.split(",")
    if not order or not set(order) <= set(BENCH_MODES) or len(set(order)) != len(order):
        parser.error("--order: driver, both and off, any of them once, comma-separated")
    return order


def print_results(title: str, results: dict[str, dict[str, float]]) -> None:
    """One column per stack run, side by side, and the driver's over the stopped driver's when both ran."""
    modes = list(results)
    ratio = "driver" in results and "off" in results
    print(f"\n{title:48s} " + " ".join(f"{m:>8s}" for m in modes) + (f" {'driver/off':>10s}" if ratio else ""))
    for name in results[modes[0]]:
        row = " ".join(f"{results[m][name]:8.1f}" for m in modes)
        if ratio:
            d, s = results["driver"][name], results["off"][name]
            row += f" {d / s if s else 0:10.2f}"
        print(f"{name:48s} {row}")
