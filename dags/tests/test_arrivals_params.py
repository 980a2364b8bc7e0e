"""The trigger form of tidemark_arrivals against the jar: its scenarios and generator defaults are the ones
`tidemark land --list` prints, and `count_arrivals` counts what `tidemark land` would land. The DAG keeps its own
copy of them (a DAG file must not run Java to be parsed), so this test is what keeps the copy equal."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from conftest import DAGS, ROOT
from tidemark_lib import launch

JAR_DIR = Path(os.environ.get("TIDEMARK_JAR_DIR", ROOT / "jobs" / "target"))
# the trigger form's own choices, not scenarios of the jar: `landed` replays what `landed` points at (--replay)
DAG_ONLY = {"scenario": None, "landed": None}


@pytest.fixture(scope="module")
def listing():
    """What the jar says: `tidemark land --list`."""
    done = subprocess.run([str(launch.launcher(JAR_DIR)), "land", "--list"], check=True, capture_output=True,
                          text=True, timeout=120)
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def dag():
    from airflow.dag_processing.dagbag import DagBag

    bag = DagBag(str(DAGS / "tidemark_arrivals.py"))
    assert bag.import_errors == {}
    return bag.dags["tidemark_arrivals"]


def test_the_scenarios_are_the_jars_and_landed(dag, listing):
    scenario = dag.params.get_param("scenario")
    names = [s["name"] for s in listing["scenarios"]]
    assert scenario.schema["enum"] == names + ["landed"]
    assert scenario.value in names


def test_the_generator_settings_are_the_jars_options_with_its_defaults(dag, listing):
    generator = {name.replace("-", "_"): value for name, value in listing["generator"].items()}
    settings = {k: p.value for k, p in dag.params.items() if k not in DAG_ONLY}
    assert settings, "the trigger form has generator settings"
    unknown = set(settings) - set(generator)
    assert not unknown, f"trigger form settings that are no generator option of `tidemark land`: {unknown}"
    assert settings == {k: generator[k] for k in settings}


def test_the_land_command_passes_every_generator_setting_by_its_option(dag, listing):
    task = dag.get_task("arrival_1.land")
    params = {k: p.value for k, p in dag.params.items()}
    params["scenario"] = "generated"
    context = {"params": params, "ti": SimpleNamespace(task_id=task.task_id, xcom_pull=lambda task_ids: 1),
               "run_id": "r", "dag": dag}
    command = task.render_template(task.bash_command, context, jinja_env=dag.get_template_env())
    for name in params:
        if name not in DAG_ONLY:
            assert f" --{name.replace('_', '-')} {params[name]}" in command, (name, command)


def test_count_arrivals_says_what_the_jar_lists(dag, listing):
    """count_arrivals runs `tidemark land --count-arrivals` (no service needed for these): its XCom, the last line,
    is the number of arrivals the jar lists for each scenario; for `generated`, the form's `arrivals` setting."""
    task = dag.get_task("count_arrivals")
    for scenario in listing["scenarios"]:
        params = {k: p.value for k, p in dag.params.items()}
        params["scenario"] = scenario["name"]
        expected = scenario["arrivals"]
        if scenario["name"] == "generated":
            params["arrivals"] = expected = 3
        context = {"params": params, "ti": SimpleNamespace(task_id=task.task_id), "run_id": "r", "dag": dag}
        command = task.render_template(task.bash_command, context, jinja_env=dag.get_template_env())
        done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, (scenario, done.stderr)
        assert done.stdout.strip().splitlines()[-1] == str(expected), (scenario, done.stdout)
