"""tidemark_restatement: repair what the watermarks dropped, write-audit-publish on the staging branch, one stage per
task, then publish the staging branch to main."""

from __future__ import annotations

from datetime import timedelta

from airflow.sdk import DAG, Param

from tidemark_lib import FACTS, MAIN_WRITERS_POOL, OWNER, RAW_ARCHIVES, restatement_run_id, spark_submit

RUN_ID = "{{ params.run_id or tidemark_run_id(dag_run) }}"

DOC = f"""
### Restatement, stage by stage

What the streams' watermarks dropped is still in the raw archives; this DAG repairs the tables from there,
**write-audit-publish** on a Nessie branch cut from the **staging branch** (`TIDEMARK_STAGING_BRANCH`, default
`ingest`), one `spark-submit` of `tidemark restate <stage> --run-id ID` per task, then `tidemark publish`:

| task | what it does |
|---|---|
| **plan** | cuts branch `restate-ID` from the staging branch; records on it what will be corrected and the marks used |
| **write** | writes the corrections and `audit.restatement_log` rows on the branch |
| **audit** | checks the branch (invariants; DuckDB recount from the raw Parquet files); **fails the run here** when a check fails: the staging branch and main untouched, the branch kept |
| **publish** | merges the branch into the staging branch as one commit (recomputes on a new branch if the streams moved it) |
| **tag** | tags `restated-ID` at that merge commit |
| **publish_main** | `tidemark publish`: the publish checks of what is staged, then one Nessie merge of the staging branch into main |

The run id is the `run_id` param, or derived from the DAG run (`<run time>-<hash>`): the same for every retry
and clear of a run. Every stage finds its state in Nessie (the branch, its commits, the staging branch's log, the
tag), not in XCom, so rerunning a finished stage prints "already done" and changes nothing. **After a failed
audit**, fix the branch (look at `audit.checks@restate-ID`; undo a wrong commit with Iceberg's
`rollback_to_snapshot` on the branch), then *clear* `audit` and its downstream tasks: it re-audits and publishes.
With nothing late to repair every stage says so and the run is green with no commit. **A failed `publish_main`**
leaves main where it was, names the check, and tags the staged commit `rejected-<hash>` (see `tidemark_arrivals`'
docs on how to look and release it); the restated rows stay on the staging branch and go to main with the next
publish that passes.

Scheduled when `tidemark_arrivals`' last publish updated both Assets `tidemark_raw_archives` and `tidemark_facts`,
so it restates what main shows; also runs by hand. Runs never overlap (`max_active_runs=1`); `publish` and
`publish_main` take the `{MAIN_WRITERS_POOL}` pool (1 slot) with the arrivals' streams and publishes and the
maintenance jobs.
"""


def _stage(stage: str, doc: str, **kwargs):
    return spark_submit(
        stage,
        ["restate", stage, "--run-id", RUN_ID],
        doc_md=doc,
        context=f"restate={RUN_ID}",
        **kwargs,
    )


with DAG(
    dag_id="tidemark_restatement",
    description="Restate late data on a Nessie branch of the staging branch: plan, write, audit, publish, tag; "
    "then publish to main",
    doc_md=DOC,
    schedule=RAW_ARCHIVES & FACTS,
    catchup=False,
    max_active_runs=1,
    tags=["tidemark", "restatement", "nessie"],
    user_defined_macros={"tidemark_run_id": restatement_run_id},
    default_args={
        "owner": OWNER,
        "retries": 2,
        "retry_delay": timedelta(seconds=20),
        "execution_timeout": timedelta(minutes=30),
    },
    params={
        "run_id": Param(
            "",
            type="string",
            pattern=r"^([A-Za-z0-9][A-Za-z0-9._-]{0,80})?$",
            description="Restatement run id (branch restate-ID, tag restated-ID). Empty: derived from this DAG run. "
            "Give an existing one to resume that restatement.",
        ),
        "max_attempts": Param(3, type="integer", minimum=1, maximum=10,
                              description="publish: recompute-and-merge attempts when main moved meanwhile"),
    },
) as dag:
    plan = _stage("plan", "`tidemark restate plan`: cut `restate-ID` from the staging branch and record what will be "
                  "corrected.")
    write = _stage("write", "`tidemark restate write`: the corrections and restatement_log rows, on the branch.")
    audit = _stage(
        "audit",
        "`tidemark restate audit`: check the branch; exit 1 names the failed check and the SQL to look at it. "
        "No retries: a failed audit is a finding, not a glitch; fix the branch and clear this task.",
        retries=0,
    )
    publish = spark_submit(
        "publish",
        ["restate", "publish", "--run-id", RUN_ID, "--max-attempts", "{{ params.max_attempts }}"],
        doc_md="`tidemark restate publish`: merge the audited branch into the staging branch as one commit.",
        context=f"restate={RUN_ID}",
        pool=MAIN_WRITERS_POOL,
    )
    tag = _stage("tag", "`tidemark restate tag`: tag `restated-ID` at the merge commit of this run on the staging "
                 "branch.")
    publish_main = spark_submit(
        "publish_main",
        ["publish"],
        doc_md="`tidemark publish`: the publish checks of what is staged (the restatement's merge), then one Nessie "
        "merge of the staging branch into main. A failed check fails this task with one line naming it; main stays.",
        context=f"restate={RUN_ID}",
        pool=MAIN_WRITERS_POOL,
        # a failed check is a finding, not a glitch: a retry would only check the same head again
        retries=0,
    )
    plan >> write >> audit >> publish >> tag >> publish_main
