"""tidemark_arrivals: replay arrivals of data through the streams, one arrival at a time."""

from __future__ import annotations

import shlex
from datetime import timedelta

from airflow.sdk import DAG, Param, TaskGroup

from tidemark_lib import (
    FACTS,
    WRITERS_POOL,
    MAX_ARRIVALS,
    OWNER,
    PUBLISHED,
    RAW_ARCHIVES,
    TidemarkBashOperator,
    job_env,
    spark_submit,
    tidemark_cli,
)

# what `tidemark land` lands for the scenario of the trigger form (the arrival number is added per task)
_SOURCE = (
    "{% if params.scenario == 'landed' %}--replay {{ params.landed | shell_quote }}"
    "{% else %}--scenario {{ params.scenario }}{% endif %}"
)
# params['keys'], not params.keys: Jinja looks an attribute up first, and the params are a dict with a keys method
_GENERATOR_FLAGS = (
    "{% if params.scenario == 'generated' %}"
    " --seed {{ params.seed }} --events {{ params.events }} --arrivals {{ params.arrivals }}"
    " --groups {{ params.groups }} --duplicate-rate {{ params.duplicate_rate }}"
    " --late-rate {{ params.late_rate }} --malformed-rate {{ params.malformed_rate }} --jumps {{ params.jumps }}"
    " --changes {{ params.changes }} --keys {{ params['keys'] }}"
    "{% endif %}"
)

DOC = f"""
### Arrivals, one at a time, each published to main whole and checked

Replays the arrivals of a scenario the way production sees them, for every feed of the pipeline file
(`TIDEMARK_PIPELINE`, default the seed's: events and company changes): for each arrival *k*, strictly in sequence,

1. **`arrival_k.land`** — `tidemark land --scenario S --arrival k` writes arrival *k* of every feed into the
   landing zone (an arrival already there with the same content is left as it is);
2. **`arrival_k.streams`** — one `spark-submit` of `tidemark stream all`: one availableNow run of every stream of
   every feed (per fact feed its raw archive + quarantine, dedup and windowed aggregates; per dimension feed its raw
   archive and SCD2 stream), each printing its one-line result (batches, rows written, late rows dropped, watermark)
   in the task log. The streams commit to the **staging branch** (`TIDEMARK_STAGING_BRANCH`, default `ingest`), never
   to `main`;
3. **`arrival_k.publish`** — one `spark-submit` of `tidemark publish`: checks what was staged since the last
   publish (every landed line archived or quarantined, the SCD2 invariants on the keys it changed, the windows
   it finalized, the same arrivals in every stream of a feed, no writer but tidemark's jobs) and, when all pass,
   merges the staging branch into `main` in one Nessie commit naming each feed's arrival, the rows per table and the
   checks (`tidemark.published`). Readers of `main` see arrival *k* whole, or not at all;

then arrival *k+1*. The grid has {MAX_ARRIVALS} arrival groups (`TIDEMARK_AIRFLOW_MAX_ARRIVALS`); a scenario with
fewer arrivals skips the rest. The **last arrival's publish** updates the Assets `tidemark_raw_archives` and
`tidemark_facts` (through the alias `tidemark_published`), on which `tidemark_restatement` is scheduled: the
restatement starts once every arrival is on `main`. **`check`** then runs `tidemark check --report` on `main`:
SCD2 invariants of every dimension, raw + rejected = lines landed, the finalized windows and, per arrival,
each stream run's line as recorded in `audit.stream_batches` (one row per micro-batch).

**An arrival that failed its checks**: `arrival_k.publish` fails (exit 1: a finding, not retried) with one
line naming the check and its recipe, e.g. `publish refused by check scd2-invariants: main unchanged, staged commit
tagged rejected-<hash>; see docs/troubleshooting.md#refused-by-scd2-invariants`, every check's result above it in
the log. `main` stays where it was, the later arrivals do not run, and the staged commit is kept as the tag
`rejected-<hash>`. Release it with that recipe (`docs/troubleshooting.md` in the repository, one per check), then
**Clear** `arrival_k.publish` with its downstream tasks: it checks the staging branch's head again and publishes it,
and the next arrivals follow.

**The report**: `check` then writes the pipeline report, one HTML page with its charts inside (time per stream per
arrival, late rows dropped next to what the restatements recovered, state size, watermarks, files per table), to
`$TIDEMARK_HOME/reports/pipeline.html` on the machine that ran the task: natively `.tidemark/reports/pipeline.html`
in the checkout, on docker compose `/opt/tidemark/home/reports/pipeline.html` in the scheduler (`docker compose cp
airflow-scheduler:/opt/tidemark/home/reports/pipeline.html .`). The task log's last lines name it. `tidemark report`
writes it again at any time, e.g. after a restatement.

**Trigger form**: `scenario` is a seed scenario (`seed` = the demo's; the seed pipeline's feeds only), `generated`
with the generator settings below (lines for the pipeline's own feeds, made from their declared types), or `landed`:
arrivals landed before under `landed` (`s3://bucket/prefix` or a local directory of the workers, laid out as
`<feed>/arrival=NNNN/`, what `tidemark land --prefix` and
`--to-dir` write), replayed into the landing zone arrival by arrival with their numbers (1..n). Arrivals already
landed with the same content are left as they are (landing is idempotent), so a run over a scenario that landed
before just replays the streams.

**Retries**: every task is safe to rerun: landing is idempotent, the streams skip what their checkpoints and the
tables' commits already hold, and a publish with nothing new staged makes no commit. tidemark itself absorbs a
service's transient faults (a connection closed, a timeout, a 503); a task is retried when its command still exits 3
(a service kept failing or went away) or its JVM was killed, never when it exits 1 (a finding: a refused publish, a
failed check) or 2 (a bad setting), which a retry would only meet again. Runs of this DAG never overlap
(`max_active_runs=1`), and the streams and publish tasks take the `{WRITERS_POOL}` pool (1 slot) with the
restatement's and the maintenance's writers: one writer of the staging branch at a time.
"""


def announce_if_last(k: int):
    """The post-execute hook of arrival k's publish: when k is the scenario's last arrival, the publish updates the
    Assets the restatement DAG is scheduled on (through the alias PUBLISHED), so the restatement runs once, on main
    holding every arrival; the earlier publishes update nothing."""

    def post_execute(context, result=None):
        arrivals = int(context["ti"].xcom_pull(task_ids="count_arrivals"))
        if k == arrivals:
            for asset in (RAW_ARCHIVES, FACTS):
                context["outlet_events"][PUBLISHED].add(asset, extra={"arrivals": arrivals})

    return post_execute


with DAG(
    dag_id="tidemark_arrivals",
    description="Land each arrival, run every stream once onto the staging branch, publish it to main; arrival "
    "after arrival",
    doc_md=DOC,
    schedule=None,
    catchup=False,
    max_active_runs=1,
    user_defined_filters={"shell_quote": shlex.quote},
    tags=["tidemark", "streaming", "arrivals"],
    default_args={
        "owner": OWNER,
        "retries": 2,
        "retry_delay": timedelta(seconds=20),
        "execution_timeout": timedelta(minutes=20),
    },
    params={
        "scenario": Param(
            "seed",
            enum=["seed", "seed-counts", "seed-dedup", "seed-scd2", "generated", "landed"],
            description="seed = the demo's arrivals (counts, dedup and SCD2 stories; the seed pipeline's feeds); "
            "generated = lines for the pipeline's feeds with the settings below; landed = the arrivals under `landed`",
        ),
        "landed": Param(
            "",
            type="string",
            description="landed: s3://bucket/prefix or a local directory holding <feed>/arrival=NNNN/ for the "
            "pipeline's feeds (e.g. written by `tidemark land --prefix P` or `--to-dir D`)",
        ),
        "seed": Param(42, type="integer", description="generated: random seed (same seed, same files)"),
        "events": Param(10000, type="integer", minimum=1, description="generated: distinct records of each fact feed"),
        "arrivals": Param(5, type="integer", minimum=1, maximum=MAX_ARRIVALS, description="generated: arrivals"),
        "groups": Param(20, type="integer", minimum=1, description="generated: values of each grouping column"),
        "duplicate_rate": Param(0.02, type="number", minimum=0, maximum=1, description="generated"),
        "late_rate": Param(0.01, type="number", minimum=0, maximum=1, description="generated"),
        "malformed_rate": Param(0.01, type="number", minimum=0, maximum=1, description="generated"),
        "jumps": Param(1, type="integer", minimum=0, description="generated: far-future events"),
        "changes": Param(0, type="integer", minimum=0, description="generated: changes of each dimension feed"),
        "keys": Param(100, type="integer", minimum=1, description="generated: keys of each dimension's changes"),
    },
) as dag:
    bootstrap = TidemarkBashOperator(
        task_id="bootstrap",
        bash_command=tidemark_cli("bootstrap"),
        env=job_env(""),
        append_env=True,
        doc_md="`tidemark bootstrap`: buckets, namespaces and tables; makes no commit when everything exists.",
    )

    count_arrivals = TidemarkBashOperator(
        task_id="count_arrivals",
        bash_command=(
            "set -euo pipefail\n"
            "{% if params.scenario == 'landed' and not params.landed %}"
            "echo 'scenario landed: set `landed` to the s3://bucket/prefix or directory of the arrivals' >&2; exit 1\n"
            "{% endif %}"
            'n="$(' + tidemark_cli("land", _SOURCE, "--count-arrivals") + _GENERATOR_FLAGS + ')"\n'
            'echo "scenario {{ params.scenario }}: $n arrival(s)"\n'
            f'if [ "$n" -gt {MAX_ARRIVALS} ]; then echo "more arrivals than the {MAX_ARRIVALS} groups of this DAG '
            '(TIDEMARK_AIRFLOW_MAX_ARRIVALS)" >&2; exit 1; fi\n'
            'echo "$n"\n'
        ),
        doc_md="`tidemark land --scenario S --count-arrivals` (or `--replay L`): how many arrivals the scenario has "
        "(its last log line, pushed as XCom); the groups past it skip.",
    )
    bootstrap >> count_arrivals

    previous = count_arrivals
    publish_tasks = []
    for k in range(1, MAX_ARRIVALS + 1):
        with TaskGroup(group_id=f"arrival_{k}",
                       tooltip=f"arrival {k}: land it, every stream once, then publish it") as group:
            land = TidemarkBashOperator(
                task_id="land",
                bash_command=(
                    "set -euo pipefail\n"
                    "n={{ ti.xcom_pull(task_ids='count_arrivals') }}\n"
                    f'if [ {k} -gt "$n" ]; then echo "the scenario has $n arrival(s): no arrival {k}"; exit 99; fi\n'
                    + tidemark_cli("land", _SOURCE, "--arrival", str(k))
                    + _GENERATOR_FLAGS
                    + "\n"
                ),
                env=job_env(f"arrival={k}"),
                append_env=True,
                skip_on_exit_code=99,
                execution_timeout=timedelta(minutes=10),
                doc_md=f"`tidemark land --scenario S --arrival {k}` (or `--replay L`): writes arrival {k} into the "
                "landing zone "
                "(skipped when the scenario has fewer arrivals; a no-op when it is there already).",
            )
            streams = spark_submit(
                "streams",
                ["stream", "all"],
                doc_md=f"spark-submit `tidemark stream all`: one availableNow run of every stream of every feed over "
                f"what landed up to arrival {k}, committed to the staging branch; one line per stream in the log.",
                context=f"arrival={k}",
                pool=WRITERS_POOL,
            )
            publish = spark_submit(
                "publish",
                ["publish"],
                doc_md=f"spark-submit `tidemark publish`: the checks of what arrival {k} staged, then one Nessie merge "
                "of the staging branch into main. A failed check fails this task with one line naming it (main "
                "unchanged, the staged commit tagged `rejected-<hash>`): fix the staging branch, then clear this "
                "task. The last arrival's publish updates the Assets of tidemark_restatement.",
                context=f"arrival={k}",
                pool=WRITERS_POOL,
                # retried only for a service's fault (exit 3): a failed check (exit 1) would fail again
                outlets=[PUBLISHED],
                post_execute=announce_if_last(k),
            )
            land >> streams >> publish
        previous >> group
        previous = group
        publish_tasks.append(publish)

    check = TidemarkBashOperator(
        task_id="check",
        bash_command=tidemark_cli("check", "--report"),
        env=job_env(""),
        append_env=True,
        trigger_rule="none_failed_min_one_success",
        doc_md="`tidemark check --report` on main (the published branch): SCD2 invariants of every dimension, raw + "
        "rejected = lines "
        "landed, the finalized windows and each arrival's stream runs as recorded in `audit.stream_batches`; writes "
        "the pipeline report to `$TIDEMARK_HOME/reports/pipeline.html` (the log's last lines name it).",
    )
    publish_tasks >> check
