"""What tidemark's DAGs share: settings from the environment and factories for the tasks that call `tidemark`.

Everything here is read when a DAG file is parsed, so it stays cheap: environment variables, paths and the few lines
the build wrote next to the jars (spark-submit.conf), no connection, Variable, database or network. Secrets never pass through here: the jobs inherit them from the worker's
environment (TIDEMARK_S3_SECRET_KEY ...), so they never land in rendered task fields or logs.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import tempfile
from pathlib import Path

from airflow.providers.apache.spark.operators.spark_submit import SparkSubmitOperator
from airflow.providers.standard.operators.bash import BashOperator
from airflow.sdk import Asset, AssetAlias
from airflow.sdk.exceptions import AirflowFailException

from tidemark_lib import launch


def _setting(name: str) -> str:
    """An Airflow setting of tidemark's, which infra/airflow/airflow.env gives the native stack and compose alike."""
    value = os.environ.get(name)
    if not value:
        raise RuntimeError(f"{name} is not set: Airflow's processes get it from infra/airflow/airflow.env "
                           "(infra/native/stack and docker-compose.yml load that file)")
    return value


# the spark-submit of tidemark-spark.jar as the build wrote it next to the jars (launch.py)
SPARK_SUBMIT = launch.spark_submit_line()
SPARK_LOG4J = os.environ.get("TIDEMARK_SPARK_LOG4J", str(Path(__file__).resolve().parent / "spark-log4j2.properties"))
SPARK_CONN_ID = _setting("TIDEMARK_SPARK_CONN_ID")
# one slot: the tasks that write (to the staging branch, or publish it to main) take turns across DAGs
WRITERS_POOL = _setting("TIDEMARK_AIRFLOW_POOL")
# the arrivals DAG has this many arrival groups; a scenario with fewer skips the rest
MAX_ARRIVALS = int(_setting("TIDEMARK_AIRFLOW_MAX_ARRIVALS"))
OWNER = "tidemark"

# tidemark_arrivals' publish of its last arrival updates both (through PUBLISHED); tidemark_restatement is scheduled
# on them, so it runs on what main shows
RAW_ARCHIVES = Asset(name="tidemark_raw_archives", uri="tidemark://nessie/main/raw")
FACTS = Asset(name="tidemark_facts", uri="tidemark://nessie/main/facts")
# the outlet of every arrival's publish: which assets it updates is decided as it ends (only the last arrival's does)
PUBLISHED = AssetAlias(name="tidemark_published")

_SECRET_WORDS = ("SECRET", "ACCESS_KEY", "PASSWORD", "TOKEN")


def job_env(context: str) -> dict[str, str]:
    """TIDEMARK_* settings for a job, plus TIDEMARK_RUN_CONTEXT (a template) naming the DAG run and task.

    Secrets are left out on purpose: env_vars are rendered into the task's fields, which the UI shows; the job
    process inherits them from the worker's environment instead.
    """
    env = {
        k: v
        for k, v in os.environ.items()
        if k.startswith("TIDEMARK_") and not any(w in k for w in _SECRET_WORDS) and k != "TIDEMARK_RUN_CONTEXT"
    }
    env["TIDEMARK_RUN_CONTEXT"] = "dag={{ dag.dag_id }} run={{ run_id }} task={{ ti.task_id }}" + (
        " " + context if context else ""
    )
    return env


def tidemark_cli(*args: str) -> str:
    """The shell command of `tidemark ARGS` as a person runs it: the launcher next to the jar (no spark-submit)."""
    return launch.command(*args)


def restatement_run_id(dag_run) -> str:
    """The tidemark run id of an Airflow DAG run: stable across retries and clears of that run, and shaped like
    the ids `tidemark restate` generates (yyyyMMddTHHmmssZ-xxxx), so branches read restate-<time>-<hash>."""
    when = dag_run.run_after.strftime("%Y%m%dT%H%M%SZ")
    return f"{when}-{hashlib.sha1(dag_run.run_id.encode()).hexdigest()[:4]}"


def driver_class_archive() -> Path:
    """Where the spark-submit driver's class archive (CDS) is kept: named by what its classes come from (the
    application jar as built, the s3a jars, the Spark install that `spark-submit` on PATH belongs to, the JVM), so
    that a rebuild or another Spark gets a new one instead of one the JVM would silently refuse."""
    app = Path(SPARK_SUBMIT.application)
    jar = app.stat() if app.exists() else None
    spark_submit = shutil.which("spark-submit")
    key = "|".join(map(str, (
        jar and (jar.st_size, jar.st_mtime_ns), SPARK_SUBMIT.jars, spark_submit and os.path.realpath(spark_submit),
        os.environ.get("SPARK_HOME"), os.environ.get("JAVA_HOME"),
    )))
    home = os.environ.get("TIDEMARK_HOME") or tempfile.gettempdir()
    return Path(home) / "cds" / f"spark-driver-{hashlib.sha1(key.encode()).hexdigest()[:12]}.jsa"


def driver_java_options(archive: Path, training: Path | None) -> str:
    """The driver JVM's options: the jobs' log4j settings, the launcher's JVM options as for the tasks it starts
    (TIDEMARK_JAVA_OPTS; by default the JIT's first tier: a submit over a seed arrival takes about half the CPU; set
    it empty for large arrivals on local[N], where the driver does the work), then either the class archive mapped
    or, when there is none yet, the archive written to `training` at exit, as the launcher words them (CDS logging
    off: its messages would go to stdout, and a stale archive is then just not used)."""
    options = launch.java_options(write_archive=training) if training else launch.java_options(map_archive=archive)
    return " ".join([f"-Dlog4j2.configurationFile=file:{SPARK_LOG4J}", *map(shlex.quote, options)])


# tidemark's exit codes (README, docs/troubleshooting.md): 1 the work failed (a finding: a refused publish, a failed
# audit or check), 2 a bad setting or option, 3 a service could not be reached (or kept failing through tidemark's own
# retries). A retry meets 1 and 2 again, so they fail the task at once; 3 and a killed JVM are retried.
NOT_RETRIED = {1: "a finding or a failed job", 2: "a bad setting or option"}


def fail_or_retry(exit_code: int | None, failure: Exception):
    """Re-raise a failed command's exception so that Airflow retries it only when a retry can pass: exit 1 and 2 fail
    the task for good (AirflowFailException), naming why; anything else (3, a JVM killed) as it came, retried."""
    if exit_code in NOT_RETRIED:
        raise AirflowFailException(
            f"tidemark exited {exit_code} ({NOT_RETRIED[exit_code]}): not retried, a retry would meet it again; the "
            "log's last lines say what, docs/troubleshooting.md says what releases it") from failure
    raise failure


class TidemarkBashOperator(BashOperator):
    """A `tidemark` command in bash, retried by Airflow only when a retry can pass ({@link fail_or_retry})."""

    def execute(self, context):
        try:
            return super().execute(context)
        except Exception as e:  # the provider's AirflowException, whichever module it comes from
            process = getattr(self.subprocess_hook, "sub_process", None)
            fail_or_retry(getattr(process, "returncode", None), e)


class TidemarkSparkSubmitOperator(SparkSubmitOperator):
    """spark-submit of tidemark-spark.jar whose driver maps the classes it loads from a class archive (CDS).

    The first submit on a machine (or after a rebuild) writes the archive at its driver's exit to a file of its own,
    which replaces the archive only when the submit succeeded: two first submits at once each write their own,
    and a killed one leaves nothing that a later driver could map. A submit in cluster deploy mode writes it on the
    cluster's machine, where it is of no use here: nothing is kept then.
    """

    def execute(self, context):
        archive = driver_class_archive()
        training = None
        if not archive.is_file():
            archive.parent.mkdir(parents=True, exist_ok=True)
            training = archive.with_name(f"{archive.name}.{os.getpid()}.tmp")
        self.conf = dict(self.conf or {}, **{"spark.driver.extraJavaOptions": driver_java_options(archive, training)})
        try:
            try:
                super().execute(context)
            except Exception as e:  # the provider's AirflowException, whichever module it comes from
                # spark-submit exits with the driver's code (client mode: the driver is its JVM)
                process = getattr(getattr(self, "_hook", None), "_submit_sp", None)
                fail_or_retry(getattr(process, "returncode", None), e)
            if training is not None and training.is_file() and training.stat().st_size > 0:
                os.replace(training, archive)
                self.log.info("the driver's class archive for later submits: %s", archive)
                # the archives of earlier builds (about 200 MB each) would only pile up: no driver maps them now
                for old in archive.parent.glob("spark-driver-*.jsa"):
                    if old != archive:
                        old.unlink(missing_ok=True)
        finally:
            if training is not None:
                training.unlink(missing_ok=True)


def spark_submit(task_id: str, args: list[str], doc_md: str, context: str = "", **kwargs):
    """A spark-submit running `tidemark ARGS` from tidemark-spark.jar on the spark_default connection."""
    return TidemarkSparkSubmitOperator(
        task_id=task_id,
        conn_id=SPARK_CONN_ID,
        application=SPARK_SUBMIT.application,
        java_class=SPARK_SUBMIT.java_class,
        jars=SPARK_SUBMIT.jars,
        application_args=args,
        env_vars=job_env(context),
        name=f"tidemark {' '.join(args[:2])}",
        conf={
            **SPARK_SUBMIT.conf,
            # the driver's log4j settings; execute() adds the JVM options and the class archive
            "spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile=file:{SPARK_LOG4J}",
        },
        doc_md=doc_md,
        **kwargs,
    )
