"""What tidemark's DAGs share: settings from the environment and factories for the tasks that call `tidemark`.

Everything here is read when a DAG file is parsed, so it stays cheap: environment variables and paths only, no
connection, Variable, database or network. Secrets never pass through here: the jobs inherit them from the worker's
environment (TIDEMARK_S3_SECRET_KEY ...), so they never land in rendered task fields or logs.
"""

from __future__ import annotations

import hashlib
import os
import shlex
from pathlib import Path

from airflow.providers.apache.spark.operators.spark_submit import SparkSubmitOperator
from airflow.sdk import Asset

# where the jars are: jobs/target of the checkout next to dags/, unless the environment says otherwise (images)
JAR_DIR = Path(os.environ.get("TIDEMARK_JAR_DIR", str(Path(__file__).resolve().parents[2] / "jobs" / "target")))
TIDEMARK_JAR = JAR_DIR / "tidemark.jar"
SPARK_JAR = JAR_DIR / "tidemark-spark.jar"
# s3a is not in stock Spark: the versions match Spark 3.5.8's Hadoop 3.3.4 (the build copies them to target/lib)
S3A_JARS = os.environ.get(
    "TIDEMARK_SPARK_JARS",
    ",".join(str(JAR_DIR / "lib" / j) for j in ("hadoop-aws-3.3.4.jar", "aws-java-sdk-bundle-1.12.262.jar")),
)
SPARK_LOG4J = os.environ.get("TIDEMARK_SPARK_LOG4J", str(Path(__file__).resolve().parent / "spark-log4j2.properties"))
JAVA = os.environ.get("TIDEMARK_JAVA", "java")
# the JVM options ./tidemark gives a short command (the JIT's first tier, the code cache both tiers would have);
# plus the class archive the build's first Spark command wrote next to the jar (the JVM ignores a missing or stale
# one, silently with cds logging off): about half the CPU of a JVM's start
JAVA_OPTS = shlex.split(os.environ.get("TIDEMARK_JAVA_OPTS", "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=240m"))
CLASS_ARCHIVE = JAR_DIR / "tidemark.jsa"
SPARK_CONN_ID = os.environ.get("TIDEMARK_SPARK_CONN_ID", "spark_default")
# one slot: the tasks that commit to the catalog's main branch take turns across DAGs
MAIN_WRITERS_POOL = os.environ.get("TIDEMARK_AIRFLOW_POOL", "tidemark_main_writers")
# the arrivals DAG has this many arrival groups; a scenario with fewer skips the rest
MAX_ARRIVALS = int(os.environ.get("TIDEMARK_AIRFLOW_MAX_ARRIVALS", "6"))
OWNER = "tidemark"

# tidemark_arrivals' check updates both after every arrival went through; tidemark_restatement is scheduled on them
RAW_ARCHIVES = Asset(name="tidemark_raw_archives", uri="tidemark://nessie/main/raw")
FACTS = Asset(name="tidemark_facts", uri="tidemark://nessie/main/facts")

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
    """The shell command of `tidemark ARGS` as a person runs it (the jar, without spark-submit)."""
    share = [f"-XX:SharedArchiveFile={CLASS_ARCHIVE}", "-Xlog:cds*=off"]
    java = [JAVA, *JAVA_OPTS, *share, "-jar", str(TIDEMARK_JAR)]
    return " ".join([*(shlex.quote(a) for a in java), *args])


def restatement_run_id(dag_run) -> str:
    """The tidemark run id of an Airflow DAG run: stable across retries and clears of that run, and shaped like
    the ids `tidemark restate` generates (yyyyMMddTHHmmssZ-xxxx), so branches read restate-<time>-<hash>."""
    when = dag_run.run_after.strftime("%Y%m%dT%H%M%SZ")
    return f"{when}-{hashlib.sha1(dag_run.run_id.encode()).hexdigest()[:4]}"


def spark_submit(task_id: str, args: list[str], doc_md: str, context: str = "", **kwargs):
    """A SparkSubmitOperator running `tidemark ARGS` from tidemark-spark.jar on the spark_default connection."""
    return SparkSubmitOperator(
        task_id=task_id,
        conn_id=SPARK_CONN_ID,
        application=str(SPARK_JAR),
        java_class="io.tidemark.cli.Tidemark",
        jars=S3A_JARS,
        application_args=args,
        env_vars=job_env(context),
        name=f"tidemark {' '.join(args[:2])}",
        conf={
            # the jobs' Spark UI would only collide on ports between concurrent submits
            "spark.ui.enabled": "false",
            "spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile=file:{SPARK_LOG4J}",
        },
        doc_md=doc_md,
        **kwargs,
    )
