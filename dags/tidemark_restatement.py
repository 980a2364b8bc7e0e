"""tidemark_restatement: repair what the watermarks dropped, write-audit-merge into the staging branch, one stage per
task, then publish the staging branch to main."""

from __future__ import annotations

from datetime import timedelta

from airflow.sdk import DAG, Param

from tidemark_lib import FACTS, OWNER, RAW_ARCHIVES, WRITERS_POOL, restatement_run_id, spark_submit

RUN_ID = "{{ params.run_id or tidemark_run_id(dag_run) }}"

DOC = f"""
### Restatement, stage by stage

What the streams' watermarks dropped is still in the raw archives; this DAG repairs the tables from there,
**write-audit-merge** on a Nessie branch cut from the **staging branch** (`TIDEMARK_STAGING_BRANCH`, default
`ingest`), one `spark-submit` of `tidemark restate <stage> --run-id ID` per task, then `tidemark publish`:

| task | what it does |
|---|---|
| **plan** | cuts branch `restate-ID` from the staging branch; records on it what will be corrected and the marks used |
| **write** | writes the corrections and `audit.restatement_log` rows on the branch |
| **audit** | checks the branch (invariants; DuckDB recount from the raw Parquet files); **fails the run here** when a check fails: the staging branch and main untouched, the branch kept |
| **merge** | merges the branch into the staging branch as one commit (recomputes on a new branch if the streams moved it); `tidemark restate publish` is another name of it |
| **tag** | tags `restated-ID` at that merge commit |
| **publish_main** | `tidemark publish`: the publish checks of what is staged, then one Nessie merge of the staging branch into main |

The run id is the `run_id` param, or derived from the DAG run (`<run time>-<hash>`): the same for every retry
and clear of a run. Every stage finds its state in Nessie (the branch, its commits, the staging branch's log, the
tag), not in XCom, so rerunning a finished stage prints "already done" and changes nothing. With nothing late to
repair every stage says so and the run is green with no commit.

**A failed audit** fails `audit` (exit 1: a finding, not retried): the staging branch and main untouched,
the branch kept to look at. **A failed `publish_main`** leaves main where it was, names the check, and tags the
staged commit `rejected-<hash>`; the restated rows stay on the staging branch and go to main with the next publish
that passes. What releases each, command by command: `docs/troubleshooting.md` in the repository
(`#a-failed-restatement-audit`, `#a-refused-publish`).

Scheduled when `tidemark_arrivals`' last publish updated both Assets `tidemark_raw_archives` and `tidemark_facts`,
so it restates what main shows; also runs by hand. Runs never overlap (`max_active_runs=1`); `merge` and
`publish_main` take the `{WRITERS_POOL}` pool (1 slot) with the arrivals' streams and publishes and the
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
    description="Restate late data on a Nessie branch of the staging branch: plan, write, audit, merge, tag; "
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
                              description="merge: recompute-and-merge attempts when the staging branch moved "
                              "meanwhile"),
    },
) as dag:
    plan = _stage("plan", "`tidemark restate plan`: cut `restate-ID` from the staging branch and record what will be "
                  "corrected.")
    write = _stage("write", "`tidemark restate write`: the corrections and restatement_log rows, on the branch.")
    audit = _stage(
        "audit",
        "`tidemark restate audit`: check the branch; exit 1 names the failed check and the SQL to look at it. "
        "A failed audit is a finding (exit 1), not retried; a service's fault (exit 3) is "
        "(docs/troubleshooting.md#a-failed-restatement-audit).",
    )
    merge = spark_submit(
        "merge",
        ["restate", "merge", "--run-id", RUN_ID, "--max-attempts", "{{ params.max_attempts }}"],
        doc_md="`tidemark restate merge`: merge the audited branch into the staging branch as one commit.",
        context=f"restate={RUN_ID}",
        pool=WRITERS_POOL,
    )
    tag = _stage("tag", "`tidemark restate tag`: tag `restated-ID` at the merge commit of this run on the staging "
                 "branch.")
    publish_main = spark_submit(
        "publish_main",
        ["publish"],
        doc_md="`tidemark publish`: the publish checks of what is staged (the restatement's merge), then one Nessie "
        "merge of the staging branch into main. A failed check fails this task with one line naming it; main stays.",
        context=f"restate={RUN_ID}",
        pool=WRITERS_POOL,
    )
    plan >> write >> audit >> merge >> tag >> publish_main
