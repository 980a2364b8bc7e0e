"""A pipeline of the user's own through Airflow, on the native stack: the stack started with TIDEMARK_PIPELINE naming
pipelines/shop.yml (two fact feeds, two dimensions, none of them the seed's), tidemark_arrivals triggered with the
generated scenario that `tidemark demo` lands for such a file. Each arrival of the four feeds is landed, streamed and
published to main in one commit naming each feed's arrival; the last publish starts tidemark_restatement, which
repairs every feed on its branch, audits it, merges and publishes. Every table on main then equals main's after
`TIDEMARK_PIPELINE=pipelines/shop.yml tidemark demo`, run alongside on a home of its own, and headless Chromium shows
main's log in the Nessie UI naming the feeds of each arrival.
"""

from __future__ import annotations

import json
import subprocess
import time
import urllib.parse

import pytest

from conftest import ROOT
from stacks import SHOTS, Home, log, published_arrivals
from tidemark_lib import tidemark_cli
from test_native_stack import Airflow

SHOP = ROOT / "pipelines" / "shop.yml"
FEEDS = ("orders", "clicks", "customers", "stores")
# what `tidemark demo` lands for a pipeline that does not declare the seed's feeds (DemoCommand.arrivals)
DEMO_SCENARIO = {"scenario": "generated", "seed": 42, "events": 200, "groups": 5, "late_rate": 0.05,
                 "malformed_rate": 0.02, "arrivals": 4, "changes": 40, "keys": 10}
# where two runs of the same arrivals may differ: when and by which batch a row was taken in, and from which path
VOLATILE = {"source_file", "batch_id", "ingest_ts"}


def shop_home(name: str) -> Home:
    home = Home(name)
    home.env["TIDEMARK_PIPELINE"] = str(SHOP)
    # the stack's driver warms up on one seed arrival, not four, as test_native_stack.py's: this test is about the
    # pipeline (bench_native.py times a stack started as users get it)
    home.env["TIDEMARK_DRIVER_WARM_UP"] = "1"
    return home


def rows(home: Home, ref: str = "main") -> dict[str, list[str]]:
    """Every table the pipeline's streams write, and what its restatements corrected, on ref: sorted JSON rows per
    table, without the volatile columns, doubles to 12 significant digits (two runs may add them in other orders)."""
    show = json.loads(home.tidemark("pipeline", "show", "--format", "json"))
    tables = sorted({t for s in show["streams"] for t in s["tables"]})
    log_table = show["shared_tables"]["restatement_log"]
    parts = [f"SELECT '{t}' AS t, to_json(struct(*)) AS j FROM {t}" for t in tables]
    parts.append(f"SELECT '{log_table}' AS t, to_json(named_struct('target', target_table, 'correction', correction, "
                 f"'key', key, 'old', old_value, 'new', new_value)) AS j FROM {log_table}")
    out: dict[str, list[str]] = {t: [] for t in [*tables, log_table]}
    for row in home.sql_json(" UNION ALL ".join(parts), ref=ref):
        values = {k: (float(f"{v:.12g}") if isinstance(v, float) else v)
                  for k, v in json.loads(row["j"]).items() if k not in VOLATILE}
        out[row["t"]].append(json.dumps(values, sort_keys=True))
    return {t: sorted(r) for t, r in out.items()}


@pytest.fixture(scope="module")
def shop_demo():
    """`tidemark demo` of the shop pipeline, started at once on a home of its own; its tables on main when asked."""
    home = shop_home("shop-demo-home")
    demo_log = home.dir / "demo.log"
    proc = subprocess.Popen(["bash", "-c", "exec " + tidemark_cli("demo")], env=home.env, stdout=open(demo_log, "w"),
                            stderr=subprocess.STDOUT)
    started = time.monotonic()

    def tables() -> dict[str, list[str]]:
        assert proc.wait(timeout=1800) == 0, demo_log.read_text()[-3000:]
        log(f"tidemark demo (shop pipeline): {time.monotonic() - started:.0f} s")
        return rows(home)

    try:
        yield tables
    finally:
        if proc.poll() is None:
            proc.kill()
        home.tidemark("services", "down", check=False)


@pytest.fixture(scope="module")
def shop_airflow():
    home = shop_home("shop-stack-home")
    af = Airflow(home)
    t0 = time.monotonic()
    up = af.stack("up")
    log(f"stack up (shop pipeline): {time.monotonic() - t0:.0f} s")
    try:
        assert up.returncode == 0, up.stdout + up.stderr
        af.login()
        yield af
    finally:
        down = af.stack("down")
        print(down.stdout, down.stderr)


def test_a_pipeline_of_its_own_replays_through_airflow_as_the_demo_runs_it(shop_airflow, shop_demo):
    af, home = shop_airflow, shop_airflow.home
    af.wait(lambda: {d["dag_id"] for d in af.call("GET", "/api/v2/dags")["dags"]}
            >= {"tidemark_arrivals", "tidemark_restatement"}, 180)
    # unpaused before the arrivals: Airflow queues an Asset event only for DAGs that are not paused at that moment
    af.pause("tidemark_restatement", False)
    af.pause("tidemark_arrivals", False)
    run = af.call("POST", "/api/v2/dags/tidemark_arrivals/dagRuns", {"logical_date": None, "conf": DEMO_SCENARIO})
    t0 = time.monotonic()
    state = af.finished("tidemark_arrivals", run["dag_run_id"], 3600)
    log(f"tidemark_arrivals (shop pipeline, generated): {state['state']} in {time.monotonic() - t0:.0f} s")
    tis = af.log_task_instances("tidemark_arrivals", run["dag_run_id"])
    assert state["state"] == "success", {t: ti["state"] for t, ti in tis.items()}
    assert {tis[f"arrival_{k}.{t}"]["state"] for k in range(1, 5) for t in ("land", "streams", "publish")} \
        == {"success"}
    assert tis["arrival_5.land"]["state"] == "skipped"
    # one publish commit per arrival, naming each feed's arrival
    assert published_arrivals(home, FEEDS) == {k: 1 for k in range(1, 5)}

    def restated():
        """tidemark_restatement, started by the last publish, to finish"""
        runs = af.runs("tidemark_restatement")
        return runs[0] if runs and runs[0]["state"] in ("success", "failed") else None

    restatement = af.wait(restated, 2400, step=5.0)
    tis = af.log_task_instances("tidemark_restatement", restatement["dag_run_id"])
    assert restatement["state"] == "success", {t: ti["state"] for t, ti in tis.items()}
    refs = home.references()
    assert any(t == "TAG" and r.startswith("restated-") for r, (t, _) in refs.items()), refs
    assert home.log("main")[0]["properties"]["tidemark.published"] == refs["ingest"][1], "main lags the staging branch"

    ours, theirs = rows(home), shop_demo()
    assert ours.keys() == theirs.keys()
    assert ours["facts.orders"] and ours["facts.sales_per_store"], "the orders feed wrote nothing"
    assert ours["ops.restatement_log"], "the restatement corrected nothing"
    for table in theirs:
        assert ours[table] == theirs[table], table

    from browser import Chromium

    SHOTS.mkdir(parents=True, exist_ok=True)
    with Chromium(SHOTS) as browser:
        browser.shoot(f"http://127.0.0.1:{home.nessie_port}/commits/main", "shop-nessie-main-commits",
                      must_show=["publish orders arrival 4, clicks arrival 4, customers arrival 4, stores arrival 4 "
                                 "from ingest"])


def test_an_arrival_held_by_an_expectation_fails_its_publish_task_until_a_correction_lands(shop_airflow):
    """After the replay above: arrival 5 brings an order line with a negative price (orders' price_not_negative,
    action fail). Its publish task fails once, not retried, its log ending with the refusal's line (expectation,
    count, sample key), shown by the UI too; main is unchanged. The recipe of docs/troubleshooting.md then releases
    it: the line landed again with its price fixed, the arrival's streams cleared with what follows them."""
    af, home = shop_airflow, shop_airflow.home
    af.pause("tidemark_restatement", True)  # the release publishes the last arrival: nothing to restate here
    landed = home.dir / "landed"
    flags = [f"--{k.replace('_', '-')}={v}" for k, v in DEMO_SCENARIO.items()]
    home.tidemark("land", *flags, "--to-dir", str(landed))
    held = landed / "orders" / "arrival=0005" / "held.jsonl"
    held.parent.mkdir(parents=True)
    # a minute after the newest order time: nothing the dedup's watermark has passed
    iso = "\"yyyy-MM-dd'T'HH:mm:ss'Z'\""
    newest = home.sql_json(f"SELECT date_format(max(ordered_at) + INTERVAL 1 MINUTE, {iso}) AS t "
                           "FROM raw.orders")[0]["t"]
    line = {"order_id": "held-1", "line_no": 1, "store_country": "c1", "store_no": 1, "customer_id": 1, "sku": "k1",
            "qty": 2, "price": -3.0, "business_day": "2026-01-01", "ordered_at": newest}
    held.write_text(json.dumps(line) + "\n")
    main_before = home.references()["main"][1]

    run = af.call("POST", "/api/v2/dags/tidemark_arrivals/dagRuns", {
        "logical_date": None, "conf": {**DEMO_SCENARIO, "scenario": "landed", "landed": str(landed)}})
    run_id = run["dag_run_id"]
    state = af.finished("tidemark_arrivals", run_id, 2400)
    tis = af.log_task_instances("tidemark_arrivals", run_id)
    assert state["state"] == "failed", {t: ti["state"] for t, ti in tis.items()}
    assert {tis[f"arrival_{k}.{t}"]["state"] for k in range(1, 5) for t in ("land", "streams", "publish")} \
        == {"success"}
    publish = tis["arrival_5.publish"]
    assert (publish["state"], publish["try_number"]) == ("failed", 1), "a refusal is a finding: never retried"
    assert home.references()["main"][1] == main_before, "main moved although the arrival was held"
    quoted = urllib.parse.quote(run_id, safe="")
    task_log = json.dumps(af.call("GET", f"/api/v2/dags/tidemark_arrivals/dagRuns/{quoted}/taskInstances/"
                                         f"arrival_5.publish/logs/1?full_content=true"))
    refusal = ("publish refused by check expectations (orders arrival 5: price_not_negative (fail, v1) 1 of 1 row(s),"
               " e.g. order_id=held-1, line_no=1")
    assert refusal in task_log, task_log[-3000:]
    assert "docs/troubleshooting.md#refused-by-expectations" in task_log

    from browser import Chromium

    SHOTS.mkdir(parents=True, exist_ok=True)
    # a tall window: the log view draws the lines it shows, and the refusal is the log's last
    with Chromium(SHOTS, height=2400) as browser:
        browser.cookie(af.url, "_token", af.token)
        browser.shoot(f"{af.url}/dags/tidemark_arrivals/runs/{quoted}/tasks/arrival_5.publish", "shop-held-arrival",
                      must_show=["arrival_5.publish", "price_not_negative (fail, v1)"])

    # the recipe: the held line fixed and landed again (arrival 6), then under Airflow the arrival's streams cleared
    # with their downstream tasks
    fixed = home.dir / "held-fixed.jsonl"
    fixed.write_text(json.dumps({**line, "price": 3.0}) + "\n")
    home.tidemark("land", "--from", str(fixed), "--feed", "orders")
    af.call("POST", "/api/v2/dags/tidemark_arrivals/clearTaskInstances", {
        "dry_run": False, "task_ids": ["arrival_5.streams"], "dag_run_id": run_id, "include_downstream": True,
        "only_failed": False, "reset_dag_runs": True})
    af.wait(lambda: af.run("tidemark_arrivals", run_id)["state"] != "failed", 120)
    state = af.finished("tidemark_arrivals", run_id, 1800)
    tis = af.log_task_instances("tidemark_arrivals", run_id)
    assert state["state"] == "success", {t: ti["state"] for t, ti in tis.items()}
    assert published_arrivals(home, FEEDS) == {k: 1 for k in range(1, 7)}
    rows = home.sql_json("SELECT CAST(price AS STRING) AS price FROM facts.orders WHERE order_id = 'held-1'")
    assert rows == [{"price": "3.00"}], rows
