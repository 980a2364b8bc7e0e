"""tidemark_maintenance: daily table maintenance: compaction on the staging branch, reference-aware GC, restatement
branch retention."""

from __future__ import annotations

from datetime import timedelta

from airflow.sdk import DAG, CronTriggerTimetable, Param

from tidemark_lib import WRITERS_POOL, OWNER, spark_submit

DOC = f"""
### Table maintenance, daily

Every micro-batch commits a few small files; every restatement leaves a branch. Once a day, one `spark-submit` of
`tidemark maintain <job>` per task, in this order:

| task | what it does |
|---|---|
| **compact** | `maintain compact`: bin-packs small data files (Iceberg `rewrite_data_files`, only partitions with at least `min_input_files` small files) and rewrites manifests, on the **staging branch** (`TIDEMARK_STAGING_BRANCH`, default `ingest`) like every writer; main gets the compacted files with the next `tidemark publish` (the publish checks let compaction's `replace` commits through). A stream commit that races it is retried, no row is lost |
| **gc** | `maintain gc --delete`: mark every file any live commit of any branch or tag reads (main, the staging branch, `restate-*`, the `restated-*` and `rejected-*` tags: commits newer than `retain`, and every head), sweep the warehouse objects no one reads that are older than `grace` |
| **branches** | `maintain branches`: deletes `restate-*` branches beyond the newest `keep` once tagged, and any older than `max_age`, and the `rejected-*` tags of refused arrivals older than `max_age`; the `restated-*` tags and the staging branch stay |

Every task is safe to rerun. All three take the `{WRITERS_POOL}` pool (1 slot), as the arrivals' streams and
publishes and the restatement's merges do, so maintenance never writes the staging branch beside another writer.
`dry_run` makes every task print what it would do and change nothing.
"""

DRY_RUN = "--dry-run={{ 'true' if params.dry_run else 'false' }}"


def _job(task_id: str, args: list[str], doc: str):
    return spark_submit(
        task_id,
        ["maintain", task_id, *args, DRY_RUN],
        doc_md=doc,
        context=f"maintain={task_id}",
        pool=WRITERS_POOL,
    )


with DAG(
    dag_id="tidemark_maintenance",
    description="Daily table maintenance: compaction, then reference-aware GC, then restatement branch retention",
    doc_md=DOC,
    # at midnight UTC, the first time at the first midnight after the DAG appears: with a start date in the past
    # Airflow would run the latest midnight's at once, and a stack just started would compact and collect before
    # its first arrival, holding the writers' pool meanwhile. A zero timedelta, not False: Airflow 3.3.2 takes False
    # like None, and a DAG appearing less than 2.4 h after midnight would run that midnight's at once
    schedule=CronTriggerTimetable("0 0 * * *", timezone="UTC", run_immediately=timedelta(0)),
    catchup=False,
    max_active_runs=1,
    tags=["tidemark", "maintenance", "nessie"],
    default_args={
        "owner": OWNER,
        "retries": 2,
        "retry_delay": timedelta(minutes=1),
        "execution_timeout": timedelta(hours=2),
    },
    params={
        "min_input_files": Param(5, type="integer", minimum=2, description="compact: a partition with fewer small "
                                 "files is left alone"),
        "retain": Param("7 days", type="string", pattern=r"^\d+ (second|minute|hour|day)s?$",
                        description="gc: commits newer than this stay readable on every branch and tag"),
        "grace": Param("6 hours", type="string", pattern=r"^\d+ (second|minute|hour|day)s?$",
                       description="gc: objects written more recently are never deleted"),
        "keep": Param(10, type="integer", minimum=0, description="branches: restatement branches always kept"),
        "max_age": Param("30 days", type="string", pattern=r"^\d+ (second|minute|hour|day)s?$",
                         description="branches: restatement branches and rejected-* tags older than this are "
                         "deleted"),
        "dry_run": Param(False, type="boolean", description="print what each job would do; change nothing"),
    },
) as dag:
    compact = _job(
        "compact",
        ["--min-input-files", "{{ params.min_input_files }}"],
        "`tidemark maintain compact`: bin-pack small files and rewrite manifests of every table on the staging "
        "branch; main gets them with the next publish.",
    )
    gc = _job(
        "gc",
        ["--retain", "{{ params.retain }}", "--grace", "{{ params.grace }}", "--delete"],
        "`tidemark maintain gc --delete`: delete the warehouse objects no live commit of any branch or tag reads.",
    )
    branches = _job(
        "branches",
        ["--keep", "{{ params.keep }}", "--max-age", "{{ params.max_age }}"],
        "`tidemark maintain branches`: delete restatement branches no longer needed (their tags stay) and the "
        "`rejected-*` tags older than `max_age`.",
    )
    compact >> gc >> branches
