"""docker compose up, for real: every image built from this checkout (infra/images/Dockerfile, on the Debian bases
infra/compose/engine makes where no registry answers), the stack of docker-compose.yml brought up with `up --wait`,
then driven as a user drives it, through its published loopback ports only:

tidemark_arrivals replays the seed scenario through the stack's Airflow (REST API), its streams and publishes
spark-submitted to the stack's Spark cluster, while the stack is hurt between and during arrivals: Nessie and MinIO
restarted after arrival 1 (the catalog's commits are in Nessie's PostgreSQL, the objects in MinIO's volume), the whole
stack stopped, brought down and up again after arrival 2 (volumes kept: the DAG run resumes at arrival 3), the Spark
worker killed while arrival 3's streams run and started again (Spark runs the lost tasks again on it), the
resident driver killed while arrival 4's streams run in it (the task's retry finishes the arrival, with a spark-submit of
its own while the driver is down). Exactly once through all of
it. tidemark_restatement follows on its Assets. Main's tables then equal the demo's, read with `tidemark sql`
through the stack's Nessie and MinIO ports; headless Chromium shows the Airflow runs, main's commits in the Nessie UI
(one publish per arrival) and the buckets in the MinIO console. `docker compose down -v` leaves nothing behind.

The stack runs as project tidemark-test on free host ports, so a user's own stack on the default ports is left alone.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from conftest import ROOT, WORK
from stacks import SHOTS, AirflowApi, Home, free_ports, log, published_arrivals, seconds

PROJECT = "tidemark-test"
COMPOSE = ROOT / "docker-compose.yml"
ENGINE = ROOT / "infra" / "compose" / "engine"
GEN_ENV = ROOT / "infra" / "compose" / "gen-env"
HERE = WORK / "compose"
# the images the stack builds, and the user each runs as
IMAGES = ("tidemark-minio:local", "tidemark-postgres:local", "tidemark-nessie:local", "tidemark-spark:local",
          "tidemark-airflow:local")
PORTS = ("AIRFLOW_PORT", "NESSIE_PORT", "MINIO_PORT", "MINIO_CONSOLE_PORT", "SPARK_MASTER_UI_PORT")
ONE_SHOT = {"minio-setup", "airflow-init"}


def read_env(path: Path) -> dict[str, str]:
    values = {}
    for line in path.read_text().splitlines():
        if "=" in line and not line.startswith("#"):
            name, value = line.split("=", 1)
            values[name] = value
    return values


class Stack:
    """The compose project: a .env of its own (gen-env's secrets, free host ports) and `docker compose` on it."""

    def __init__(self, warm_up: int | None = None):
        """warm_up: the seed arrivals the driver warms up on (TIDEMARK_DRIVER_WARM_UP), None for the stack's default."""
        HERE.mkdir(parents=True, exist_ok=True)
        self.env_file = HERE / ".env"
        run = subprocess.run([str(GEN_ENV), "--force", "--output", str(self.env_file)], capture_output=True, text=True,
                             timeout=60)
        assert run.returncode == 0, run.stderr
        ports = dict(zip(PORTS, free_ports(len(PORTS))))
        with self.env_file.open("a") as f:
            f.write("\n# the compose test's own\n")
            for name, port in ports.items():
                f.write(f"{name}={port}\n")
            f.write(f"AIRFLOW_BASE_URL=http://127.0.0.1:{ports['AIRFLOW_PORT']}\n")
            # the jars ./run-tests built, not a Maven build inside the image build
            f.write("TIDEMARK_JARS=checkout\n")
            if warm_up is not None:
                f.write(f"TIDEMARK_DRIVER_WARM_UP={warm_up}\n")
        self.values = read_env(self.env_file)
        self.url = {name: f"http://127.0.0.1:{port}" for name, port in ports.items()}
        self.airflow = AirflowApi(self.url["AIRFLOW_PORT"])

    def compose(self, *args: str, timeout: float = 900, check: bool = True,
                warm_up: int | None = None, jit: str | None = None) -> subprocess.CompletedProcess:
        """warm_up, jit: the driver's warm-up and JIT (TIDEMARK_DRIVER_WARM_UP, TIDEMARK_DRIVER_JIT) for the containers
        this call creates, over the env file's (as a user's shell variables would be)."""
        # only the env file decides the stack's values: no TIDEMARK_* or AIRFLOW_* of the caller's shell
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "LC_ALL", "DOCKER_HOST",
                                                              "DOCKER_CONFIG")}
        if warm_up is not None:
            env["TIDEMARK_DRIVER_WARM_UP"] = str(warm_up)
        if jit is not None:
            env["TIDEMARK_DRIVER_JIT"] = jit
        run = subprocess.run(["docker", "compose", "--project-name", PROJECT, "--project-directory", str(ROOT),
                              "--env-file", str(self.env_file), "-f", str(COMPOSE), *args],
                             capture_output=True, text=True, timeout=timeout, env=env)
        if check:
            assert run.returncode == 0, (f"docker compose {' '.join(args)} exited {run.returncode}:\n"
                                         f"{run.stderr[-4000:]}")
        return run

    def containers(self) -> dict[str, dict]:
        """Every container of the project, running or not, by service (one each here)."""
        out = self.compose("ps", "--all", "--format", "json").stdout.strip()
        rows = json.loads(out) if out.startswith("[") else [json.loads(line) for line in out.splitlines() if line]
        return {r["Service"]: r for r in rows}

    def up(self, warm_up: int | None = None, jit: str | None = None) -> float:
        t0 = time.monotonic()
        run = self.compose("up", "--detach", "--wait", "--wait-timeout", "900", timeout=1200, check=False,
                           warm_up=warm_up, jit=jit)
        if run.returncode != 0:
            logs = self.compose("logs", "--tail", "30", timeout=120, check=False).stdout
            # a service that gave up says why in its first lines, which the tails of all would cut
            driver = self.compose("logs", "--no-log-prefix", "driver", timeout=120, check=False).stdout
            first = "\n".join(line for line in driver.splitlines() if not line.startswith("\tat ")
                              and ("tidemark" in line or "driver:" in line or "Exception" in line))[:3000]
            raise AssertionError(f"docker compose up --wait failed:\n{run.stderr[-3000:]}\n{logs[-6000:]}\n"
                                 f"the driver's own lines:\n{first}")
        return time.monotonic() - t0

    def healthy(self, services: tuple[str, ...], timeout: float = 600) -> None:
        def all_healthy():
            """the services to be healthy"""
            states = self.containers()
            return all(states.get(s, {}).get("Health") == "healthy" for s in services)

        self.airflow.wait(all_healthy, timeout)

    def exit_codes(self) -> dict[str, int]:
        names = subprocess.run(["docker", "ps", "--all", "--quiet", "--filter",
                                f"label=com.docker.compose.project={PROJECT}"], capture_output=True, text=True,
                               check=True).stdout.split()
        if not names:
            return {}
        out = subprocess.run(["docker", "inspect", "--format",
                              '{{index .Config.Labels "com.docker.compose.service"}} {{.State.ExitCode}}', *names],
                             capture_output=True, text=True, check=True).stdout
        return {line.split()[0]: int(line.split()[1]) for line in out.splitlines()}

    def leftovers(self) -> list[str]:
        """What of the project is still on the engine: containers, volumes, networks."""
        found = []
        for kind in ("ps --all", "volume ls", "network ls"):
            out = subprocess.run(["docker", *kind.split(), "--quiet", "--filter",
                                  f"label=com.docker.compose.project={PROJECT}"], capture_output=True, text=True,
                                 check=True).stdout.split()
            found += [f"{kind.split()[0]} {o}" for o in out]
        return found


class StackHome(Home):
    """`tidemark` on this machine, pointed at the stack's Nessie and MinIO through their published ports, with the
    jobs' S3 keys of the stack's .env: what a user does to query the stack from the host (docs/compose.md)."""

    def __init__(self, stack: Stack):
        super().__init__("compose-home")
        v = stack.values
        self.nessie_port = int(v["NESSIE_PORT"])
        self.env.update({
            "TIDEMARK_NESSIE_URI": f"{stack.url['NESSIE_PORT']}/api/v2",
            "TIDEMARK_S3_ENDPOINT": stack.url["MINIO_PORT"],
            "TIDEMARK_S3_PATH_STYLE": "true",
            "TIDEMARK_S3_ACCESS_KEY": v["TIDEMARK_S3_ACCESS_KEY"],
            "TIDEMARK_S3_SECRET_KEY": v["TIDEMARK_S3_SECRET_KEY"],
        })


@pytest.fixture(scope="module")
def stack():
    t0 = time.monotonic()
    engine = subprocess.run([str(ENGINE), "up"], capture_output=True, text=True, timeout=1800)
    assert engine.returncode == 0, engine.stdout + engine.stderr
    # a dockerd that inherited the engine's lock would hold it for as long as it runs: the next call waits for ever
    free = subprocess.run(["flock", "--nonblock", str(ROOT / "target" / "docker-engine" / "lock"), "true"])
    assert free.returncode == 0, "the engine's lock is still held after `engine up` returned"
    log(f"compose: engine, Compose v2 and the Debian bases ready in {time.monotonic() - t0:.0f} s")
    # one seed arrival of warm-up, not the four users get, and only at the first up (the driver starts twice more:
    # up again after the stop, after it is killed, with none): the warm-up is the same code, and bench_compose.py
    # measures the default
    s = Stack(warm_up=1)
    # a run killed before its teardown leaves the project's volumes: their databases hold the passwords of that run's
    # .env, not of the new one gen-env just wrote, and airflow-init and Nessie could never log in to them
    earlier = s.leftovers()
    if earlier:
        s.compose("down", "--volumes", "--remove-orphans", "--timeout", "30", timeout=600)
        log(f"compose: removed what an earlier run left: {', '.join(earlier)}")
    try:
        t0 = time.monotonic()
        s.compose("build", timeout=3600)
        log(f"compose: images built (cached layers reused) in {time.monotonic() - t0:.0f} s")
        for image in IMAGES:
            size = subprocess.run(["docker", "image", "inspect", "--format", "{{.Size}}", image], capture_output=True,
                                  text=True, check=True).stdout.strip()
            log(f"  {image:26s} {int(size) / 1e6:7.0f} MB")
        log(f"compose: up --wait in {s.up():.0f} s")
        # the driver warmed up on the cluster before it answered: its status line says so
        status = s.compose("exec", "-T", "airflow-scheduler", "/opt/tidemark/jars/tidemark", "driver", "status",
                           timeout=120).stdout
        assert re.search(r"warm-up: done in [\d.]+ s \(4 commands", status), status
        # on the JIT's first tier (TIDEMARK_DRIVER_JIT's default), and so are its executors, the only ones yet
        assert ", the JIT's first tier;" in status, status
        executors = s.compose("exec", "-T", "spark-worker", "bash", "-c",
                              "grep -h '^Spark Executor Command' \"$SPARK_WORKER_DIR\"/app-*/*/stderr",
                              timeout=60).stdout
        assert executors.strip() and all("-XX:TieredStopAtLevel=1" in e for e in executors.splitlines()), executors
        log("compose: " + status.strip()[-160:])
        s.airflow.login(s.values["AIRFLOW_ADMIN_PASSWORD"])
        yield s
    finally:
        t0 = time.monotonic()
        down = s.compose("down", "--volumes", "--remove-orphans", "--timeout", "30", timeout=600, check=False)
        log(f"compose: down -v in {time.monotonic() - t0:.0f} s")
        left = s.leftovers()
        # each build with new jars leaves the images it replaced behind, untagged: a machine that runs the tests
        # again and again would fill its disk with them (the build cache keeps what a next build reuses)
        subprocess.run(["docker", "image", "prune", "--force", "--filter",
                        "label=org.opencontainers.image.vendor=tidemark"], capture_output=True, text=True, timeout=600)
        subprocess.run([str(ENGINE), "down"], capture_output=True, text=True, timeout=120)
        assert down.returncode == 0, down.stderr
        assert not left, f"docker compose down -v left {left}"


def test_the_images_are_ours_run_as_their_users_and_hold_no_secret(stack):
    secrets = {v for k, v in stack.values.items() if v and any(w in k for w in ("PASSWORD", "SECRET", "KEY", "USER"))}
    assert len(secrets) >= 8, secrets
    for image in IMAGES:
        info = json.loads(subprocess.run(["docker", "image", "inspect", image], capture_output=True, text=True,
                                         check=True).stdout)[0]
        assert info["Config"]["User"] not in ("", "0", "root"), f"{image} runs as root"
        assert info["Config"]["Labels"]["org.opencontainers.image.title"] == image.split(":")[0]
        history = subprocess.run(["docker", "history", "--no-trunc", "--format", "{{.CreatedBy}}", image],
                                 capture_output=True, text=True, check=True).stdout
        assert not [s for s in secrets if s in history], f"a secret of .env is in {image}'s history"
        os_release = subprocess.run(["docker", "run", "--rm", "--entrypoint", "cat", image, "/etc/os-release"],
                                    capture_output=True, text=True, check=True).stdout
        assert "Debian GNU/Linux" in os_release, f"{image}: {os_release}"
    # MinIO built from its source names its release, not DEVELOPMENT.GOGET
    version = subprocess.run(["docker", "run", "--rm", IMAGES[0], "--version"], capture_output=True, text=True,
                             check=True).stdout
    assert "RELEASE.20" in version and "DEVELOPMENT" not in version, version
    services = stack.containers()
    assert {s for s, c in services.items() if c["State"] == "exited"} == ONE_SHOT
    assert all(stack.exit_codes()[s] == 0 for s in ONE_SHOT)
    assert {s: c.get("Health") for s, c in services.items() if s not in ONE_SHOT} == {
        s: "healthy" for s in services if s not in ONE_SHOT}
    # the health check of the dag-processor and the triggerer (infra/airflow/entry alive) tells them apart: each
    # container has its own job running, not the other's
    entry = ("bash", "/opt/tidemark/infra/airflow/entry", "alive")
    for service, own, other in (("airflow-dag-processor", "DagProcessorJob", "TriggererJob"),
                                ("airflow-triggerer", "TriggererJob", "DagProcessorJob")):
        mine = stack.compose("exec", "-T", service, *entry, own, timeout=60, check=False)
        assert mine.returncode == 0 and f"{own} on " in mine.stdout and "alive" in mine.stdout, mine
        theirs = stack.compose("exec", "-T", service, *entry, other, timeout=60, check=False)
        assert theirs.returncode == 1 and f"no running {other} on " in theirs.stderr, theirs


def pause_after_arrival(af: AirflowApi, run_id: str, k: int) -> str:
    """Pauses tidemark_arrivals once arrival k's publish runs (no new task starts; the running one ends), then waits
    until nothing runs; returns where the run stopped."""

    def publishing():
        """arrival {k}'s publish to start"""
        return af.tasks("tidemark_arrivals", run_id)[f"arrival_{k}.publish"]["state"] in ("running", "success")

    af.wait(publishing, 1800, step=1.0)
    af.pause("tidemark_arrivals", True)

    def quiet():
        """arrival {k}'s publish to end, and nothing else to run"""
        tis = af.tasks("tidemark_arrivals", run_id)
        assert tis[f"arrival_{k}.publish"]["state"] not in ("failed", "upstream_failed"), tis
        return tis[f"arrival_{k}.publish"]["state"] == "success" and not [
            t for t, ti in tis.items() if ti["state"] in ("running", "queued", "scheduled", "up_for_retry")]

    af.wait(quiet, 1800)
    tis = af.tasks("tidemark_arrivals", run_id)
    return ", ".join(f"{t} {tis[t]['state']}" for t in (f"arrival_{k}.publish", f"arrival_{k + 1}.land"))


def test_arrivals_through_restarts_and_a_lost_worker_then_the_restatement(stack, demo):
    af, home = stack.airflow, StackHome(stack)
    af.wait(lambda: {d["dag_id"] for d in af.call("GET", "/api/v2/dags")["dags"]}
            >= {"tidemark_arrivals", "tidemark_restatement", "tidemark_maintenance"}, 300)
    # daily at 00:00 UTC: a compaction would move main if the test ran over midnight
    af.pause("tidemark_maintenance", True)
    assert not af.call("GET", "/api/v2/dags/tidemark_restatement")["is_paused"], "the Assets would not trigger it"
    run_id = af.call("POST", "/api/v2/dags/tidemark_arrivals/dagRuns",
                     {"logical_date": None, "conf": {"scenario": "seed"}})["dag_run_id"]
    t0 = time.monotonic()

    # 1. after arrival 1: Nessie and MinIO restarted; the catalog and the objects are still there
    where = pause_after_arrival(af, run_id, 1)
    refs = home.references()
    assert set(refs) >= {"main", "ingest"}, refs
    t1 = time.monotonic()
    stack.compose("restart", "nessie", "minio")
    stack.healthy(("nessie", "minio"))
    log(f"compose: Nessie and MinIO restarted after arrival 1 ({where}) in {time.monotonic() - t1:.0f} s")
    assert home.references() == refs, "Nessie lost commits in its restart"
    af.pause("tidemark_arrivals", False)

    # 2. after arrival 2: the stack stopped (every service quickly, none killed after the grace period), brought
    # down and up again with its volumes; the DAG run resumes at arrival 3
    where = pause_after_arrival(af, run_id, 2)
    refs = home.references()
    t1 = time.monotonic()
    stack.compose("stop", "--timeout", "30")
    stopped = time.monotonic() - t1
    codes = stack.exit_codes()
    assert not [s for s, code in codes.items() if code == 137], f"killed after the stop's grace period: {codes}"
    stack.compose("down", "--timeout", "30")
    assert not stack.exit_codes(), "containers left after down"
    # its driver with no warm-up: the first up checked the warm-up; this one only costs the test its minute
    up = stack.up(warm_up=0)
    log(f"compose: the stack stopped in {stopped:.0f} s (exit codes {sorted(set(codes.values()))}), down, up --wait "
        f"in {up:.0f} s after arrival 2 ({where})")
    assert home.references() == refs, "the catalog changed across down and up"
    assert af.run("tidemark_arrivals", run_id)["state"] == "running"
    af.pause("tidemark_arrivals", False)

    # 3. arrival 3's streams: the Spark worker killed while the application has its executor, then started again
    master = stack.url["SPARK_MASTER_UI_PORT"]

    def streams_on_the_cluster(k: int = 3):
        """arrival k's streams to run on the worker"""
        ti = af.tasks("tidemark_arrivals", run_id)[f"arrival_{k}.streams"]
        with urllib.request.urlopen(f"{master}/json/", timeout=30) as r:
            apps = json.load(r).get("activeapps", [])
        # the resident driver's application (its executor runs the task's command), or the task's own spark-submit
        return ti["state"] == "running" and any(a["name"].startswith(("tidemark stream", "tidemark driver"))
                                                and a["cores"] > 0 for a in apps)

    af.wait(streams_on_the_cluster, 1800, step=1.0)
    stack.compose("kill", "spark-worker")
    state_at_kill = af.tasks("tidemark_arrivals", run_id)["arrival_3.streams"]["state"]
    time.sleep(5)
    stack.compose("start", "spark-worker")
    stack.healthy(("spark-worker",))
    log(f"compose: the Spark worker killed during arrival 3's streams (task {state_at_kill}) and started again")

    # 4. arrival 4's streams: their driver (the resident driver, service driver) killed while it runs them; Airflow
    # retries the task, which says in one line that the driver does not answer and runs its own spark-submit; the
    # driver comes back. A warm driver streams arrival 4 in about 5 s, less than the test needs to see the task run
    # and kill the container: the worker is stopped first (land needs no executor), so the command waits in the
    # driver for one until the kill
    where = pause_after_arrival(af, run_id, 3)
    stack.compose("stop", "spark-worker")
    af.pause("tidemark_arrivals", False)

    def streams_in_the_driver():
        """arrival 4's streams to run in the resident driver"""
        if af.tasks("tidemark_arrivals", run_id)["arrival_4.streams"]["state"] != "running":
            return False
        status = stack.compose("exec", "-T", "airflow-scheduler", "/opt/tidemark/jars/tidemark", "driver", "status",
                               timeout=120, check=False).stdout
        running = re.search(r"(\d+) running", status)
        return running and int(running.group(1)) > 0

    af.wait(streams_in_the_driver, 1800, step=1.0)
    stack.compose("kill", "driver")
    log(f"compose: the resident driver killed during arrival 4's streams (after {where}; the worker stopped)")
    stack.compose("start", "spark-worker")
    stack.healthy(("spark-worker",))
    af.wait(lambda: af.tasks("tidemark_arrivals", run_id)["arrival_4.streams"]["try_number"] >= 2, 600)
    # back with no warm-up, so that it answers the publish and the check soon: warming up, it does not answer, and
    # their spark-submits would wait for the cores its application holds
    stack.compose("up", "-d", "driver", warm_up=0)

    state = af.finished("tidemark_arrivals", run_id, 3600)
    log(f"tidemark_arrivals (seed) on compose: {state['state']} in {time.monotonic() - t0:.0f} s, faults included")
    tis = af.log_task_instances("tidemark_arrivals", run_id)
    assert state["state"] == "success", {t: ti["state"] for t, ti in tis.items()}
    expected = {f"arrival_{k}.{t}": ("success" if k <= 4 else "skipped")
                for k in range(1, 7) for t in ("land", "streams", "publish")}
    assert {t: tis[t]["state"] for t in expected} == expected
    # nothing before the down ran again after the up; the killed driver's task ran again
    assert {tis[f"arrival_{k}.{t}"]["try_number"] for k in (1, 2) for t in ("land", "streams", "publish")} == {1}
    assert tis["arrival_4.streams"]["try_number"] == 2, tis["arrival_4.streams"]
    for k in range(1, 5):
        land, streams, publish = (tis[f"arrival_{k}.{t}"] for t in ("land", "streams", "publish"))
        landed_to_streamed = seconds(streams, 'end_date') - seconds(land, 'start_date')
        log(f"  arrival {k}: land start -> streams end {landed_to_streamed:.1f} s;"
            f" streams end -> published {seconds(publish, 'end_date') - seconds(streams, 'end_date'):.1f} s"
            f" (streams try {streams['try_number']})")

    # 5. the restatement, on the Assets of the last publish
    runs = af.wait(lambda: af.runs("tidemark_restatement"), 900)
    restate = af.finished("tidemark_restatement", runs[0]["dag_run_id"], 2400)
    af.log_task_instances("tidemark_restatement", runs[0]["dag_run_id"])
    assert restate["state"] == "success" and runs[0]["run_type"] == "asset_triggered", restate
    refs = home.references()
    tags = [r for r, (t, _) in refs.items() if t == "TAG" and r.startswith("restated-")]
    assert len(tags) == 1 and refs[tags[0]][1] == refs["ingest"][1], refs

    # 6. exactly once, through every fault: main published each arrival once, then the restatement, and holds what
    # the demo's main holds
    assert published_arrivals(home) == {k: 1 for k in range(1, 5)}
    assert home.log("main")[0]["properties"]["tidemark.published"] == refs["ingest"][1], "main lags the staging branch"
    ours, theirs = home.tables("main"), demo.tables()
    assert ours["facts.event_counts"] and ours["audit.restatement_log"]
    for table in theirs:
        assert ours[table] == theirs[table], table

    stats = subprocess.run(["docker", "stats", "--no-stream", "--format", "{{.Name}} {{.MemUsage}}"],
                           capture_output=True, text=True, timeout=120).stdout
    log("compose: memory after the runs (docker stats)\n" + "\n".join(
        "  " + line for line in sorted(stats.splitlines()) if line.startswith(PROJECT)))

    # 7. seen in a browser, through the published ports
    from browser import Chromium

    SHOTS.mkdir(parents=True, exist_ok=True)
    with Chromium(SHOTS) as browser:
        browser.cookie(af.url, "_token", af.token)
        browser.shoot(f"{af.url}/dags/tidemark_arrivals/runs/{urllib.parse.quote(run_id, safe='')}",
                      "compose-airflow-arrivals", must_show=["tidemark_arrivals", f"{run_id}\nSuccess"])
        nessie = stack.url["NESSIE_PORT"]
        browser.shoot(f"{nessie}/", "compose-nessie-branches", must_show=["main"], click_text="main",
                      must_show_after=["ingest", tags[0]])
        browser.shoot(f"{nessie}/commits/main", "compose-nessie-main-commits",
                      must_show=["publish companies arrival 4 from ingest",
                                 "publish events arrival 1, companies arrival 1 from ingest"])
        console = stack.url["MINIO_CONSOLE_PORT"]
        login = urllib.request.Request(f"{console}/api/v1/login", method="POST", headers={
            "Content-Type": "application/json"}, data=json.dumps({
                "accessKey": stack.values["TIDEMARK_S3_ACCESS_KEY"],
                "secretKey": stack.values["TIDEMARK_S3_SECRET_KEY"]}).encode())
        with urllib.request.urlopen(login, timeout=60) as r:
            cookie = next(c.split(";")[0].split("=", 1)[1] for c in r.headers.get_all("Set-Cookie")
                          if c.startswith("token="))
        browser.cookie(console, "token", cookie)
        # the console's first page for a new browser is MinIO's licence notice, over the object browser
        browser.shoot(f"{console}/browser/tidemark-landing", "compose-minio-buckets", dismiss="Acknowledge",
                      must_show=["tidemark-landing", "tidemark-warehouse", "events", "companies"])
