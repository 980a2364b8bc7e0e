"""End to end on the native stack: a real Airflow (standalone, our dags/) on the embedded Nessie and S3 servers, with
real spark-submits of jobs/target/tidemark-spark.jar.

tidemark_arrivals replays the seed scenario: each arrival is landed, streamed onto the staging branch `ingest` and
published to main, one Nessie commit per arrival; the last arrival's publish updates the Assets and
tidemark_restatement starts. While its `write` task runs, the DAG is paused (an operator's move: no new task starts,
the running one finishes); then a wrong row is committed on the restatement branch and the DAG unpaused: the audit
fails, nothing after it runs, the staging branch and main are unchanged. The wrong commit is rolled back on the branch
and `audit` cleared with its downstream tasks, as a person would in the UI: the run merges into the staging branch,
tags, and publishes to main. The tables on main then equal main's after `tidemark demo` (DemoIT's run of it, or one
on a home of its own), and headless Chromium shows both DAG runs green and the branches and tag in the Nessie UI.

Every task reaches Nessie and the S3 server through a loopback proxy that closes 1% of requests unanswered and loses
0.3% of answers after forwarding (jobs/src/test/java/io/tidemark/testing/FaultProxy.java): tidemark absorbs these
transient faults, so no task fails but the audit that fails on purpose, and none needs Airflow's retry.
"""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import threading
import time
import urllib.parse

import pytest

from conftest import ROOT
from stacks import SHOTS, AirflowApi, Home, free_ports, log, published_arrivals, seconds

# the rates TransientFaultsIT uses too
CLOSE_RATE, LOSE_RATE = 0.01, 0.003

TEST_POOL = "tidemark_test_writers"


class Airflow(AirflowApi):
    """The native stack started with infra/native/stack, and its REST API with the generated login."""

    def __init__(self, home: Home):
        super().__init__("")
        self.home = home
        self.port = free_ports(1, taken=home.ports)[0]
        self.url = f"http://127.0.0.1:{self.port}"
        # every DAG loads paused and the test unpauses the two it runs: tidemark_maintenance, daily at 00:00 UTC,
        # would otherwise commit a compaction to main when the test runs over midnight (it did, and main moved)
        # and a pool of another name than infra/airflow/airflow.env's: the stack makes the one the setting names,
        # which the DAGs' tasks then take
        self.env = dict(home.env, TIDEMARK_AIRFLOW_PORT=str(self.port), AIRFLOW__CORE__DAGS_ARE_PAUSED_AT_CREATION="True",
                        TIDEMARK_AIRFLOW_POOL=TEST_POOL)

    def stack(self, command: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(ROOT / "infra" / "native" / "stack"), command], env=self.env,
                              capture_output=True, text=True, timeout=900)

    def login(self, password: str | None = None) -> None:
        passwords = self.home.dir / "airflow" / "simple_auth_manager_passwords.json.generated"
        super().login(password or json.loads(passwords.read_text())["admin"])

    def server_log(self, body: str) -> str:
        """The lines of standalone.log from the error ID that a 500 names ("... look for ID NqHkmWV2"), if any."""
        found = re.search(r"look for ID (\w+)", body)
        if not found:
            return ""
        lines = (self.home.dir / "airflow" / "standalone.log").read_text(errors="replace").splitlines()
        at = next((i for i, line in enumerate(lines) if found[1] in line), None)
        return "" if at is None else "\n--- standalone.log at " + found[1] + ":\n" + "\n".join(lines[at:at + 40])


class FaultProxies:
    """A FaultProxy process (from the Java test classes: it needs nothing but the JDK) in front of the home's Nessie
    and one in front of its S3 server, each counting what it saw and did into a file of its own."""

    def __init__(self, home: Home):
        classes = ROOT / "jobs" / "target" / "test-classes"
        assert (classes / "io" / "tidemark" / "testing" / "FaultProxy.class").is_file(), \
            "no FaultProxy class: build the test classes (mvn test-compile, or ./run-tests builds them)"
        self.ports = free_ports(2, taken=home.ports)
        self.stats = [home.dir / "fault-proxy-nessie.json", home.dir / "fault-proxy-s3.json"]
        self.processes = [
            subprocess.Popen(["java", "-cp", str(classes), "io.tidemark.testing.FaultProxy", str(port), str(target),
                              str(CLOSE_RATE), str(LOSE_RATE), str(seed), str(stats)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for port, target, seed, stats in zip(self.ports, (home.nessie_port, home.ports[2]), (4711, 4712),
                                                 self.stats)]
        deadline = time.monotonic() + 60
        while not all(f.is_file() for f in self.stats):
            assert time.monotonic() < deadline, "the fault proxies did not start"
            time.sleep(0.5)

    def env(self, home: Home) -> dict[str, str]:
        """The settings that send every task through the proxies, with the embedded S3 server's keys."""
        keys = dict(line.split("=", 1) for line in (home.dir / "s3" / "s3proxy.properties").read_text().splitlines()
                    if "=" in line and not line.startswith("#"))
        return {"TIDEMARK_NESSIE_URI": f"http://127.0.0.1:{self.ports[0]}/api/v2",
                "TIDEMARK_S3_ENDPOINT": f"http://127.0.0.1:{self.ports[1]}",
                "TIDEMARK_S3_ACCESS_KEY": keys["s3proxy.identity"], "TIDEMARK_S3_SECRET_KEY": keys["s3proxy.credential"]}

    def counts(self) -> dict[str, dict]:
        return {name: json.loads(f.read_text()) for name, f in zip(("nessie", "s3"), self.stats)}

    def stop(self) -> dict[str, dict]:
        for p in self.processes:
            p.terminate()
            p.wait(timeout=60)
        return self.counts()


@pytest.fixture(scope="module")
def airflow(demo):
    home = Home("stack-home")
    home.tidemark("services", "up")
    proxies = FaultProxies(home)
    af = Airflow(home)
    af.env.update(proxies.env(home))
    # the driver warms up on one seed arrival, not the users' four: the same code, a minute less of the test's CPU
    # (bench_native.py starts the stack with the users' default and times its arrivals)
    af.env["TIDEMARK_DRIVER_WARM_UP"] = "1"
    af.proxies = proxies
    t0 = time.monotonic()
    up = af.stack("up")
    log(f"stack up: {time.monotonic() - t0:.0f} s; " + next(
        (line for line in up.stdout.splitlines() if line.startswith("driver:")), "driver: none"))
    try:
        assert up.returncode == 0, up.stdout + up.stderr
        assert "password generated on first start, kept in" in up.stdout
        af.login()
        yield af
    finally:
        down = af.stack("down")
        print(down.stdout, down.stderr)
        counts = proxies.stop()
        log(f"fault proxies: {counts}")
        home.tidemark("services", "down")
        assert af.stack("status").returncode != 0


def test_arrivals_then_restatement_with_a_failed_audit_then_fixed(airflow, demo):
    af, home = airflow, airflow.home
    health = af.call("GET", "/api/v2/monitor/health")
    assert {health[p]["status"] for p in ("metadatabase", "scheduler", "dag_processor", "triggerer")} == {"healthy"}
    af.wait(lambda: {d["dag_id"] for d in af.call("GET", "/api/v2/dags")["dags"]}
            >= {"tidemark_arrivals", "tidemark_restatement"}, 180)
    # a write waits for a lock that another process holds longer than SQLite's own 5 s (the stack's ?timeout=60):
    # on a loaded machine Airflow's own processes did, and a pause answered 500 "Database error" after 5 s
    db = sqlite3.connect(home.dir / "airflow" / "airflow.db", timeout=60, isolation_level=None, check_same_thread=False)
    db.execute("BEGIN EXCLUSIVE")
    release = threading.Timer(8, db.execute, ("COMMIT",))
    release.start()
    try:
        af.pause("tidemark_restatement", False)
    finally:
        release.join()
        db.close()
    # unpaused from the start: Airflow queues an Asset event only for DAGs that are not paused at that moment
    af.pause("tidemark_arrivals", False)
    assert af.call("GET", "/api/v2/dags/tidemark_maintenance")["is_paused"], "the maintenance DAG would run at midnight"

    # 1. the arrivals of the seed scenario
    run = af.call("POST", "/api/v2/dags/tidemark_arrivals/dagRuns", {"logical_date": None, "conf": {"scenario": "seed"}})
    arrivals_run = run["dag_run_id"]
    t0 = time.monotonic()
    # the restatement starts when the last arrival is published, while `check` still runs: it is paused as soon as
    # its `write` runs, so that a wrong row goes onto its branch before the audit (step 2)

    def restatement_writing():
        """the restatement's write task to run"""
        runs = af.runs("tidemark_restatement")
        if runs:
            ti = af.tasks("tidemark_restatement", runs[0]["dag_run_id"]).get("write", {})
            # from queued on: in the resident driver `write` takes a second, and the audit must not be scheduled
            # before the pause (a queued task still runs while its DAG is paused)
            if ti.get("state") in ("scheduled", "queued", "running", "success"):
                return runs[0]
        return None

    paused: dict = {}

    def arrivals_finished():
        """tidemark_arrivals to finish"""
        if not paused and (writing := restatement_writing()):
            af.pause("tidemark_restatement", True)
            paused.update(writing)
        r = af.run("tidemark_arrivals", arrivals_run)
        return r if r["state"] in ("success", "failed") else None

    state = af.wait(arrivals_finished, 3600, step=0.5)
    tis = af.tasks("tidemark_arrivals", arrivals_run)
    log(f"tidemark_arrivals (seed): {state['state']} in {time.monotonic() - t0:.0f} s (queued to end)")
    for tid in sorted(tis, key=lambda t: tis[t]["start_date"] or "~"):
        ti = tis[tid]
        log(f"  {tid:22s} {ti['state']:10s} try {ti['try_number']}  {ti['duration'] or 0:6.1f} s")
    n = 4
    for k in range(1, n + 1):
        land, streams, publish = (tis[f"arrival_{k}.{t}"] for t in ("land", "streams", "publish"))
        if all(ti["state"] == "success" for ti in (land, streams, publish)):
            log(f"  arrival {k}: land start -> published {seconds(publish, 'end_date') - seconds(land, 'start_date'):.1f} s;"
                f" land start -> streams end {seconds(streams, 'end_date') - seconds(land, 'start_date'):.1f} s"
                f" (gap land end -> streams start {seconds(streams, 'start_date') - seconds(land, 'end_date'):.1f} s);"
                f" streams end -> published {seconds(publish, 'end_date') - seconds(streams, 'end_date'):.1f} s")
    assert state["state"] == "success", {t: ti["state"] for t, ti in tis.items()}
    # through the faults, no task failed: none needed a second try
    assert {t: ti["try_number"] for t, ti in tis.items() if ti["state"] == "success" and ti["try_number"] != 1} == {}
    log(f"fault proxies after the arrivals: {af.proxies.counts()}")
    expected = {f"arrival_{k}.{t}": ("success" if k <= n else "skipped")
                for k in range(1, 7) for t in ("land", "streams", "publish")}
    assert {t: tis[t]["state"] for t in expected} == expected
    assert tis["check"]["state"] == "success"
    # main moved in whole arrivals: one publish commit per arrival, each a commit of the staging branch, which exists
    refs = home.references()
    assert refs["ingest"][0] == "BRANCH", refs
    assert published_arrivals(home) == {k: 1 for k in range(1, n + 1)}
    assert home.log("main")[0]["properties"]["tidemark.published"] == refs["ingest"][1], "main lags the staging branch"
    # the check wrote the pipeline report where the DAG's docs say
    report = home.dir / "reports" / "pipeline.html"
    assert report.is_file(), "tidemark_arrivals' check wrote no report"
    assert af.call("GET", f"/api/v2/pools/{TEST_POOL}")["slots"] == 1
    assert {tis[f"arrival_{k}.{t}"]["pool"] for k in range(1, n + 1) for t in ("streams", "publish")} == {TEST_POOL}
    if af.env.get("TIDEMARK_DRIVER") == "off":
        # the first spark-submit (arrival 1's streams) wrote the drivers' class archive; the later ones mapped it
        archives = [p.name for p in (home.dir / "cds").iterdir()]
        assert len(archives) == 1 and archives[0].startswith("spark-driver-") and archives[0].endswith(".jsa"), archives
    else:
        # the stack's resident driver ran every Spark task: no spark-submit, so no drivers' class archive
        assert not (home.dir / "cds").exists(), "a Spark task ran a spark-submit beside the resident driver"
    main_before, ingest_before = refs["main"][1], refs["ingest"][1]

    # 2. the restatement, paused as its `write` ran (above), so that a wrong row goes onto its branch before the audit
    run = paused or af.wait(restatement_writing, 1800, step=1.0)
    af.pause("tidemark_restatement", True)
    restate_run = run["dag_run_id"]
    assert run["run_type"] == "asset_triggered", run
    af.wait(lambda: af.tasks("tidemark_restatement", restate_run)["write"]["state"] == "success", 900)
    time.sleep(10)  # a scheduler loop or two: nothing may start while paused
    assert af.tasks("tidemark_restatement", restate_run)["audit"]["state"] is None, \
        "the audit was scheduled although the DAG was paused"
    branches = [b for b, (t, _) in home.references().items() if t == "BRANCH" and b.startswith("restate-")]
    assert len(branches) == 1, branches
    branch = branches[0]
    rid = branch.removeprefix("restate-")
    # the wrong row: every window the restatement corrected on its branch gets 100 events more than the raw archive
    corrected = home.sql_json("SELECT company_id, CAST(w_start AS STRING) AS w_start, n FROM facts.event_counts "
                              "EXCEPT SELECT company_id, CAST(w_start AS STRING), n FROM facts.event_counts@main",
                              ref=branch)
    assert corrected, "the restatement's write corrected no window"
    windows = " OR ".join(f"(company_id = '{c['company_id']}' AND w_start = TIMESTAMP '{c['w_start']}')"
                          for c in corrected)
    written = home.snapshot_id(branch, "facts.event_counts")
    home.tidemark("sql", f"UPDATE facts.event_counts SET n = n + 100 WHERE {windows}", ref=branch)
    af.pause("tidemark_restatement", False)
    state = af.finished("tidemark_restatement", restate_run, 2400)
    tis = af.tasks("tidemark_restatement", restate_run)
    assert state["state"] == "failed"
    stages = ("plan", "write", "audit", "merge", "tag", "publish_main")
    assert {t: tis[t]["state"] for t in stages} == {
        "plan": "success", "write": "success", "audit": "failed", "merge": "upstream_failed", "tag": "upstream_failed",
        "publish_main": "upstream_failed"}
    refs = home.references()
    assert refs["main"][1] == main_before, "main moved although the audit failed"
    assert refs["ingest"][1] == ingest_before, "the staging branch moved although the audit failed"
    assert branch in refs and f"restated-{rid}" not in refs

    # 3. undo the wrong commit on the branch (a rollback to what `write` made: a correction by hand would be a commit
    # of no tidemark job, which the publish refuses), clear the audit and what follows it: the same run merges into
    # the staging branch, tags and publishes to main
    home.tidemark("sql", f"CALL nessie.system.rollback_to_snapshot('facts.event_counts', {written})", ref=branch)
    assert home.snapshot_id(branch, "facts.event_counts") == written
    af.call("POST", "/api/v2/dags/tidemark_restatement/clearTaskInstances", {
        "dry_run": False, "task_ids": ["audit"], "dag_run_id": restate_run, "include_downstream": True,
        "only_failed": False, "reset_dag_runs": True})
    af.wait(lambda: af.run("tidemark_restatement", restate_run)["state"] != "failed", 120)
    t0 = time.monotonic()
    state = af.finished("tidemark_restatement", restate_run, 2400)
    tis = af.tasks("tidemark_restatement", restate_run)
    log(f"tidemark_restatement audit -> tag after the clear: {state['state']} in {time.monotonic() - t0:.0f} s")
    for tid in stages:
        log(f"  {tid:12s} {tis[tid]['state']:10s} try {tis[tid]['try_number']}  {tis[tid]['duration'] or 0:6.1f} s")
    assert state["state"] == "success", {t: ti["state"] for t, ti in tis.items()}
    # the audit ran twice (failed on purpose, cleared), every other stage once: through the faults none failed
    assert {t: tis[t]["try_number"] for t in stages} == {"plan": 1, "write": 1, "audit": 2, "merge": 1, "tag": 1,
                                                          "publish_main": 1}
    refs = home.references()
    # the restatement's merge is the staging branch's head, tagged; publish_main made it main's in one more commit
    assert refs[f"restated-{rid}"][0] == "TAG"
    assert refs[f"restated-{rid}"][1] == refs["ingest"][1]
    head = home.log("main")[0]
    assert head["properties"]["tidemark.published"] == refs["ingest"][1], head
    assert head["message"].startswith("publish "), head
    assert published_arrivals(home) == {k: 1 for k in range(1, n + 1)}, "an arrival was published again"

    # 4. the same tables on main as on the demo's main
    ours, theirs = home.tables("main"), demo.tables()
    assert ours["facts.event_counts"], "no windowed counts at all"
    assert ours["audit.restatement_log"], "the restatement corrected nothing"
    for table in theirs:
        assert ours[table] == theirs[table], table
    assert len(corrected) == len([r for r in ours["audit.restatement_log"] if "event_counts" in r])

    # 5. seen in a browser
    from browser import Chromium

    SHOTS.mkdir(parents=True, exist_ok=True)
    with Chromium(SHOTS) as browser:
        browser.cookie(af.url, "_token", af.token)
        for dag_id, run_id in (("tidemark_arrivals", arrivals_run), ("tidemark_restatement", restate_run)):
            # the run's own state badge follows its id in the page header
            browser.shoot(f"{af.url}/dags/{dag_id}/runs/{urllib.parse.quote(run_id, safe='')}", dag_id,
                          must_show=[dag_id, f"{run_id}\nSuccess"])
        browser.shoot(report.as_uri(), "pipeline-report-airflow",
                      must_show=["tidemark pipeline report", "Time per stream per arrival", "windowed-counts"])
        browser.shoot(f"http://127.0.0.1:{home.nessie_port}/", "nessie-branches", must_show=["main"],
                      click_text="main", must_show_after=[branch, "ingest", f"restated-{rid}"])
