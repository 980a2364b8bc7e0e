"""The DAG files: they import cleanly without touching a database, a connection, a Variable or the network, and each
DAG has the shape the pipeline needs (arrivals strictly in sequence, the restatement's stages in order)."""

from __future__ import annotations

import re
import shlex
import socket
from pathlib import Path

import pytest

from conftest import DAGS, ROOT

SECRET = "s3cr3t-value-that-must-not-show"


@pytest.fixture(scope="module")
def dagbag():
    """The DagBag of dags/, parsed while every way to reach a database, a connection, a Variable or the network
    raises, and with a secret in the environment that no task may carry in its fields."""
    import sqlalchemy.engine
    from airflow.dag_processing.dagbag import DagBag
    from airflow.sdk import BaseHook, Variable

    def forbidden(what):
        def fail(*args, **kwargs):
            raise AssertionError(f"{what} while parsing the DAG files")

        return fail

    mp = pytest.MonkeyPatch()
    mp.setenv("TIDEMARK_S3_SECRET_KEY", SECRET)
    mp.setenv("TIDEMARK_S3_ACCESS_KEY", SECRET)
    mp.setenv("TIDEMARK_HOME", "/srv/tidemark-home")
    mp.setattr(sqlalchemy.engine.Engine, "connect", forbidden("database access"))
    mp.setattr(sqlalchemy.engine.Engine, "raw_connection", forbidden("database access"))
    mp.setattr(Variable, "get", forbidden("Variable lookup"))
    mp.setattr(BaseHook, "get_connection", forbidden("connection lookup"))
    mp.setattr(socket.socket, "connect", forbidden("network access"))
    try:
        bag = DagBag(str(DAGS))
    finally:
        mp.undo()
    return bag


def test_every_dag_file_imports_without_errors(dagbag):
    assert dagbag.import_errors == {}
    assert set(dagbag.dag_ids) == {"tidemark_arrivals", "tidemark_restatement", "tidemark_maintenance"}


def test_dags_and_tasks_are_documented_tagged_and_retried(dagbag):
    for dag in dagbag.dags.values():
        assert dag.doc_md and dag.doc_md.strip(), dag.dag_id
        assert "tidemark" in dag.tags, dag.dag_id
        assert dag.max_active_runs == 1, dag.dag_id
        for task in dag.tasks:
            assert task.doc_md and task.doc_md.strip(), task.task_id
            assert task.execution_timeout is not None, task.task_id
            # every task is retried, but only when its command exits 3 (a service) or its JVM is killed: a failed audit
            # or publish check (exit 1) fails at once (test_a_finding_is_not_retried_a_service_fault_is)
            assert task.retries >= 1, task.task_id
            assert type(task).__name__ in ("TidemarkBashOperator", "TidemarkSparkSubmitOperator"), task.task_id


def test_no_secret_reaches_a_task_field(dagbag):
    for dag in dagbag.dags.values():
        for task in dag.tasks:
            env = getattr(task, "env_vars", None) or getattr(task, "env", None) or {}
            assert SECRET not in " ".join(f"{k}={v}" for k, v in env.items()), task.task_id
            if env:
                # the other settings do reach the jobs, with the DAG run named for the commit authors
                assert env["TIDEMARK_HOME"] == "/srv/tidemark-home", task.task_id
                assert env["TIDEMARK_RUN_CONTEXT"].startswith("dag={{ dag.dag_id }} run={{ run_id }}"), task.task_id
    # nor is a credential written into a DAG file: no literal assigned to anything named like one
    literal = re.compile(r"(password|passwd|secret|access_key|token)\w*\s*[=:]\s*[\"'][^\"'{]+[\"']", re.I)
    for path in DAGS.rglob("*.py"):
        if "tests" not in path.relative_to(DAGS).parts:
            assert not literal.search(path.read_text()), f"a credential in {path}: {literal.search(path.read_text())}"


def upstream(dag, task_id):
    return set(dag.get_task(task_id).upstream_task_ids)


def pom_property(name: str) -> str:
    m = re.search(rf"<{re.escape(name)}>([^<]+)</{re.escape(name)}>", (ROOT / "pom.xml").read_text())
    assert m, f"pom.xml has no property {name}"
    return m.group(1).strip()


def test_arrivals_land_stream_then_publish_strictly_in_sequence(dagbag):
    from tidemark_lib import WRITERS_POOL, MAX_ARRIVALS, PUBLISHED, SPARK_SUBMIT

    dag = dagbag.dags["tidemark_arrivals"]
    assert upstream(dag, "count_arrivals") == {"bootstrap"}
    previous = "count_arrivals"
    for k in range(1, MAX_ARRIVALS + 1):
        land, streams, publish = f"arrival_{k}.land", f"arrival_{k}.streams", f"arrival_{k}.publish"
        assert upstream(dag, land) == {previous}
        assert upstream(dag, streams) == {land}
        assert upstream(dag, publish) == {streams}
        s, p = dag.get_task(streams), dag.get_task(publish)
        for t in (s, p):
            assert t.task_type == "TidemarkSparkSubmitOperator"
            assert t.application == SPARK_SUBMIT.application and t.application.endswith("/tidemark-spark.jar")
            assert t._java_class == "io.tidemark.cli.Tidemark"
            # every writer of the staging branch (and publish, the one writer of main) takes the writers' pool
            assert t.pool == WRITERS_POOL, t.task_id
            assert t.env_vars["TIDEMARK_RUN_CONTEXT"].endswith(f"arrival={k}")
        assert s.application_args == ["stream", "all"]
        assert p.application_args == ["publish"]
        assert p.trigger_rule == "all_success"
        # which Assets a publish updates is decided as it ends (the alias): only the last arrival's
        assert p.outlets == [PUBLISHED] and p._post_execute_hook is not None
        assert not s.outlets
        # the s3a jars of the versions the poms pin, as the build wrote them next to the jar
        jars = s.jars.split(",")
        assert f"hadoop-aws-{pom_property('hadoop.version')}.jar" in {Path(j).name for j in jars}, s.jars
        assert f"aws-java-sdk-bundle-{pom_property('aws-java-sdk.version')}.jar" in {Path(j).name for j in jars}
        assert all(Path(j).is_file() for j in jars), s.jars
        previous = publish
    check = dag.get_task("check")
    assert upstream(dag, "check") == {f"arrival_{k}.publish" for k in range(1, MAX_ARRIVALS + 1)}
    assert check.trigger_rule == "none_failed_min_one_success"
    assert not check.outlets, "the Assets are the publish's: the restatement runs on what main shows"
    assert [t.task_id for t in dag.topological_sort()][-1] == "check"
    assert dag.params["scenario"] == "seed"


def test_only_the_last_arrivals_publish_updates_the_restatements_assets(dagbag):
    """The post-execute hook of each publish, with Airflow's own outlet event accessors: arrival k of n adds the
    events of both Assets to the alias when k == n (the XCom of count_arrivals), none before."""
    from types import SimpleNamespace

    from airflow.sdk.execution_time.context import OutletEventAccessors
    from tidemark_lib import MAX_ARRIVALS, PUBLISHED

    dag = dagbag.dags["tidemark_arrivals"]
    restatement = dagbag.dags["tidemark_restatement"]
    scheduled_on = {a.name for a in restatement.timetable.asset_condition.objects}
    for n in (1, 4, MAX_ARRIVALS):
        for k in range(1, MAX_ARRIVALS + 1):
            task = dag.get_task(f"arrival_{k}.publish")
            pulled = []
            ti = SimpleNamespace(xcom_pull=lambda task_ids, n=n: pulled.append(task_ids) or str(n))
            events = OutletEventAccessors()
            task._post_execute_hook({"ti": ti, "outlet_events": events}, None)
            announced = {e.dest_asset_key.name for e in events[PUBLISHED].asset_alias_events}
            assert pulled == ["count_arrivals"]
            assert announced == (scheduled_on if k == n else set()), (n, k, announced)


def test_restatement_stages_in_order_then_publish_and_scheduled_on_the_assets(dagbag):
    from tidemark_lib import WRITERS_POOL

    dag = dagbag.dags["tidemark_restatement"]
    stages = ["plan", "write", "audit", "merge", "tag"]
    assert [t.task_id for t in dag.topological_sort()] == [*stages, "publish_main"]
    for before, after in zip([*stages, "publish_main"], [*stages[1:], "publish_main"]):
        assert upstream(dag, after) == {before}
    for stage in stages:
        args = dag.get_task(stage).application_args
        assert args[:3] == ["restate", stage, "--run-id"], stage
    # the restatement merges into the staging branch; then the publish of the arrivals takes it to main
    publish_main = dag.get_task("publish_main")
    assert publish_main.application_args == ["publish"]
    assert publish_main.task_type == "TidemarkSparkSubmitOperator"
    assert dag.get_task("merge").pool == publish_main.pool == WRITERS_POOL
    assert {a.name for a in dag.timetable.asset_condition.objects} == {"tidemark_raw_archives", "tidemark_facts"}


def test_restatement_run_id_is_stable_and_valid():
    import re
    from datetime import datetime, timezone
    from types import SimpleNamespace

    from tidemark_lib import restatement_run_id

    run = SimpleNamespace(run_id="manual__2026-12-01T00:20:09.220348+00:00",
                          run_after=datetime(2026, 12, 1, 0, 20, 9, tzinfo=timezone.utc))
    other = SimpleNamespace(run_id="asset_triggered__2026-12-01T00:20:09.220348+00:00", run_after=run.run_after)
    rid = restatement_run_id(run)
    assert rid == restatement_run_id(run)
    assert rid != restatement_run_id(other)
    assert re.fullmatch(r"20261201T002009Z-[0-9a-f]{4}", rid)


def test_restatement_stage_commands_render_with_the_run_id(dagbag):
    from datetime import datetime, timezone
    from types import SimpleNamespace

    from tidemark_lib import restatement_run_id

    dag = dagbag.dags["tidemark_restatement"]
    run = SimpleNamespace(run_id="asset_triggered__2026-12-01T00:20:09+00:00",
                          run_after=datetime(2026, 12, 1, 0, 20, 9, tzinfo=timezone.utc))
    env = dag.get_template_env()
    for given, expected in (("", restatement_run_id(run)), ("fix-1", "fix-1")):
        for stage in ("plan", "write", "audit", "merge", "tag", "publish_main"):
            task = dag.get_task(stage)
            context = {"params": {"run_id": given, "max_attempts": 3}, "dag_run": run, "run_id": run.run_id,
                       "dag": dag, "ti": SimpleNamespace(task_id=stage)}
            args = task.render_template(task.application_args, context, jinja_env=env)
            assert args[:4] == (["publish"] if stage == "publish_main" else ["restate", stage, "--run-id", expected])
            rendered_env = task.render_template(task.env_vars, context, jinja_env=env)
            assert rendered_env["TIDEMARK_RUN_CONTEXT"] == (
                f"dag=tidemark_restatement run={run.run_id} task={stage} restate={expected}")


def test_land_commands_render_for_seed_generated_and_landed(dagbag):
    from types import SimpleNamespace

    dag = dagbag.dags["tidemark_arrivals"]
    task = dag.get_task("arrival_2.land")
    ti = SimpleNamespace(task_id=task.task_id, xcom_pull=lambda task_ids: 4)
    base = {k: p.value for k, p in dag.params.items()}
    for params, wanted, unwanted in (
        (dict(base), "land --scenario seed --arrival 2", "--events"),
        (dict(base, scenario="generated", events=500, arrivals=3),
         "land --scenario generated --arrival 2 --seed 42 --events 500 --arrivals 3", None),
        (dict(base, scenario="landed", landed="s3://landing/old run"),
         "land --replay 's3://landing/old run' --arrival 2", "--scenario"),
    ):
        context = {"params": params, "ti": ti, "run_id": "r", "dag": dag}
        command = task.render_template(task.bash_command, context, jinja_env=dag.get_template_env())
        assert "n=4\n" in command and 'if [ 2 -gt "$n" ]' in command
        assert wanted in command, command
        assert unwanted is None or unwanted not in command, command


def test_count_arrivals_of_a_landed_directory(dagbag, tmp_path):
    """`landed`: count_arrivals finds the arrivals of a directory laid out as the landing zone (here written by
    `tidemark land --to-dir`, without any service), and names the missing setting when `landed` is empty."""
    import subprocess
    from types import SimpleNamespace

    from tidemark_lib import launch

    landed = tmp_path / "old run"
    subprocess.run([str(launch.launcher()), "land", "--scenario", "seed-counts", "--to-dir", str(landed)],
                   check=True, capture_output=True, timeout=120)
    dag = dagbag.dags["tidemark_arrivals"]
    task = dag.get_task("count_arrivals")
    base = {k: p.value for k, p in dag.params.items()}
    ti = SimpleNamespace(task_id=task.task_id)

    def run(params):
        context = {"params": params, "ti": ti, "run_id": "r", "dag": dag}
        command = task.render_template(task.bash_command, context, jinja_env=dag.get_template_env())
        return subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120)

    ok = run(dict(base, scenario="landed", landed=str(landed)))
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.strip().splitlines()[-1] == "3", ok.stdout
    unset = run(dict(base, scenario="landed"))
    assert unset.returncode == 1
    assert "scenario landed: set `landed`" in unset.stderr


def test_maintenance_runs_daily_compaction_then_gc_then_retention_in_the_writers_pool(dagbag, monkeypatch):
    from tidemark_lib import WRITERS_POOL, SPARK_SUBMIT

    dag = dagbag.dags["tidemark_maintenance"]
    jobs = ["compact", "gc", "branches"]
    assert [t.task_id for t in dag.topological_sort()] == jobs
    for before, after in zip(jobs, jobs[1:]):
        assert upstream(dag, after) == {before}
    assert dag.timetable.expression == "0 0 * * *"  # @daily
    # unpaused on a stack just started, its first run waits for the next midnight (it would hold the writers' pool
    # before the first arrival otherwise)
    from datetime import datetime, timedelta, timezone

    from airflow.serialization.encoders import coerce_to_core_timetable
    from airflow.timetables.base import TimeRestriction

    import airflow.timetables.trigger

    timetable = coerce_to_core_timetable(dag.timetable)
    # also just after midnight, where Airflow's default would run the past midnight's at once
    for now in (datetime.now(timezone.utc), datetime(2026, 12, 2, 0, 0, 1, tzinfo=timezone.utc),
                datetime(2026, 12, 2, 0, 15, tzinfo=timezone.utc), datetime(2026, 12, 2, 2, 0, tzinfo=timezone.utc),
                datetime(2026, 12, 2, 23, 59, tzinfo=timezone.utc)):
        monkeypatch.setattr(airflow.timetables.trigger, "utcnow", lambda now=now: now)
        first = timetable.next_dagrun_info(
            last_automated_data_interval=None,
            restriction=TimeRestriction(earliest=dag.start_date, latest=None, catchup=dag.catchup))
        assert now < first.run_after <= now + timedelta(days=1), (now, first.run_after)
    for job in jobs:
        task = dag.get_task(job)
        assert task.task_type == "TidemarkSparkSubmitOperator"
        assert task.application == SPARK_SUBMIT.application and task._java_class == "io.tidemark.cli.Tidemark"
        assert task.application_args[:2] == ["maintain", job], job
        # serialized against the restatement's merges and the arrivals' streams and publishes
        assert task.pool == WRITERS_POOL == dagbag.dags["tidemark_restatement"].get_task("merge").pool
    assert "staging branch" in dag.get_task("compact").doc_md and "staging branch" in dag.doc_md


def test_maintenance_commands_render_with_the_params(dagbag):
    from types import SimpleNamespace

    dag = dagbag.dags["tidemark_maintenance"]
    env = dag.get_template_env()
    base = {k: p.value for k, p in dag.params.items()}
    for dry_run in (False, True):
        rendered = {}
        for job in ("compact", "gc", "branches"):
            task = dag.get_task(job)
            context = {"params": dict(base, dry_run=dry_run), "run_id": "r", "dag": dag,
                       "ti": SimpleNamespace(task_id=job)}
            rendered[job] = task.render_template(task.application_args, context, jinja_env=env)
        flag = f"--dry-run={'true' if dry_run else 'false'}"
        assert rendered["compact"] == ["maintain", "compact", "--min-input-files", "5", flag]
        assert rendered["gc"] == ["maintain", "gc", "--retain", "7 days", "--grace", "6 hours", "--delete", flag]
        assert rendered["branches"] == ["maintain", "branches", "--keep", "10", "--max-age", "30 days", flag]


def test_the_first_submit_writes_the_drivers_class_archive_and_later_ones_map_it(tmp_path, monkeypatch):
    """Real spark-submits (of `tidemark --version`, local[1]): the first one writes the archive at its driver's exit
    and leaves no partial file; the next maps it, and would fail to start if it could not (-Xshare:on)."""
    import sys

    import tidemark_lib

    monkeypatch.setenv("TIDEMARK_HOME", str(tmp_path))
    monkeypatch.setenv("AIRFLOW_CONN_SPARK_DEFAULT", '{"conn_type": "spark", "host": "local[1]"}')
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:{__import__('os').environ['PATH']}")
    archive = tidemark_lib.driver_class_archive()
    assert archive.parent == tmp_path / "cds" and not archive.exists()
    earlier_build = archive.parent / "spark-driver-000000000000.jsa"
    earlier_build.parent.mkdir()
    earlier_build.write_bytes(b"an archive of another build")

    first = tidemark_lib.spark_submit("version", ["--version"], doc_md="the version")
    first.execute({})
    assert "-XX:ArchiveClassesAtExit=" in first.conf["spark.driver.extraJavaOptions"]
    assert archive.is_file() and archive.stat().st_size > 1 << 20
    assert [p.name for p in archive.parent.iterdir()] == [archive.name], "a partial or an earlier archive was left"

    plain = tidemark_lib.driver_java_options
    monkeypatch.setattr(tidemark_lib, "driver_java_options", lambda a, t: plain(a, t) + " -Xshare:on")
    second = tidemark_lib.spark_submit("version", ["--version"], doc_md="the version")
    second.execute({})
    assert f"-XX:SharedArchiveFile={archive} " in second.conf["spark.driver.extraJavaOptions"]
    assert "-Xshare:on" in second.conf["spark.driver.extraJavaOptions"]


def test_the_command_tasks_run_the_launcher_next_to_the_jar(dagbag):
    import shlex

    from airflow.providers.standard.operators.bash import BashOperator
    from tidemark_lib import launch

    launcher = shlex.quote(str(launch.launcher()))
    commands = [t.bash_command for d in dagbag.dags.values() for t in d.tasks if isinstance(t, BashOperator)]
    assert len(commands) >= 3
    for command in commands:
        assert launcher + " " in command, command
        assert "java" not in command, f"a JVM started past the launcher: {command}"


def test_the_drivers_get_the_launchers_jvm_options(monkeypatch, tmp_path):
    """The spark-submit drivers take the JVM options from the launcher (`tidemark --java-options`): its defaults,
    or TIDEMARK_JAVA_OPTS as the launcher reads it (empty: none); quoted for Spark, which splits the option string as
    a shell does."""
    import tidemark_lib
    from tidemark_lib import launch

    archive = tmp_path / "driver.jsa"
    monkeypatch.delenv("TIDEMARK_JAVA_OPTS", raising=False)
    default = launch.java_options()
    assert default, "the launcher gives no JVM option by default"
    options = shlex.split(tidemark_lib.driver_java_options(archive, None))
    assert options[0].startswith("-Dlog4j2.configurationFile=file:")
    assert options[1:] == [*default, f"-XX:SharedArchiveFile={archive}", "-Xlog:cds*=off"]
    monkeypatch.setenv("TIDEMARK_JAVA_OPTS", "")
    assert shlex.split(tidemark_lib.driver_java_options(archive, tmp_path / "t.jsa"))[1:] == [
        f"-XX:ArchiveClassesAtExit={tmp_path / 't.jsa'}", "-Xlog:cds*=off"]
    monkeypatch.setenv("TIDEMARK_JAVA_OPTS", "-Xmx700m -XX:+UseSerialGC")
    assert shlex.split(tidemark_lib.driver_java_options(archive, None))[1:3] == ["-Xmx700m", "-XX:+UseSerialGC"]


def test_the_dags_take_their_settings_from_the_environment():
    """The pool, the Spark connection and the arrival groups are the environment's (infra/airflow/airflow.env): a
    DAG file's import fails naming the file when one is missing, and uses what is set."""
    import os
    import subprocess
    import sys

    probe = "import tidemark_lib as t; print(t.WRITERS_POOL, t.SPARK_CONN_ID, t.MAX_ARRIVALS)"
    env = dict(os.environ, PYTHONPATH=str(DAGS), TIDEMARK_AIRFLOW_POOL="other_writers",
               TIDEMARK_SPARK_CONN_ID="spark_other", TIDEMARK_AIRFLOW_MAX_ARRIVALS="3")
    run = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.splitlines()[-1].split() == ["other_writers", "spark_other", "3"]
    del env["TIDEMARK_AIRFLOW_POOL"]
    run = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode != 0
    assert "TIDEMARK_AIRFLOW_POOL is not set" in run.stderr and "infra/airflow/airflow.env" in run.stderr


def test_a_finding_is_not_retried_a_service_fault_is(monkeypatch, tmp_path):
    """Real commands through the DAGs' operators: a command that exits 1 (a finding) or 2 (a bad option) fails its
    task for good (AirflowFailException: no retry would pass), one that exits 3 (a service could not be reached) fails
    it so that Airflow retries it; the same for the spark-submit of a real tidemark command (here `land` with a scenario
    that does not exist: exit 2)."""
    import sys

    import tidemark_lib
    from airflow.sdk.exceptions import AirflowFailException

    def outcome(task):
        try:
            task.execute({})
        except AirflowFailException as e:
            return "failed for good", str(e)
        except Exception as e:  # noqa: BLE001 - whatever Airflow retries
            return "retried", str(e)
        return "succeeded", ""

    for code, expected in ((1, "failed for good"), (2, "failed for good"), (3, "retried"), (137, "retried")):
        task = tidemark_lib.TidemarkBashOperator(task_id=f"exit_{code}", bash_command=f"exit {code}")
        got, why = outcome(task)
        assert got == expected, (code, why)
        if expected == "failed for good":
            assert f"tidemark exited {code}" in why
    monkeypatch.setenv("TIDEMARK_HOME", str(tmp_path))
    monkeypatch.setenv("AIRFLOW_CONN_SPARK_DEFAULT", '{"conn_type": "spark", "host": "local[1]"}')
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:{__import__('os').environ['PATH']}")
    submit = tidemark_lib.spark_submit("land", ["land", "--scenario", "nope", "--to-dir", str(tmp_path)],
                                       doc_md="a bad option")
    got, why = outcome(submit)
    assert got == "failed for good" and "tidemark exited 2" in why, why
