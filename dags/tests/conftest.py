"""Test settings: Airflow gets a home of its own under target/, Airflow's settings of infra/airflow/airflow.env, and
dags/ on sys.path, as Airflow's processes have them."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DAGS = ROOT / "dags"
WORK = ROOT / "target" / "airflow-tests"

# before anything imports airflow: its configuration is read once, at import
os.environ["AIRFLOW_HOME"] = str(WORK / "parse-home")
os.environ["AIRFLOW__CORE__DAGS_FOLDER"] = str(DAGS)
os.environ["AIRFLOW__CORE__LOAD_EXAMPLES"] = "False"
os.environ.setdefault("AIRFLOW__CORE__UNIT_TEST_MODE", "True")
# Airflow's settings as both stacks give them to Airflow's processes (the pool, the Spark connection id ... the DAG
# files read); a value the caller has set wins, as on the native stack
for line in (ROOT / "infra" / "airflow" / "airflow.env").read_text().splitlines():
    if line.strip() and not line.startswith("#"):
        name, value = line.split("=", 1)
        os.environ.setdefault(name, value)
sys.path.insert(0, str(DAGS))


@pytest.fixture(scope="session")
def demo():
    """What `tidemark demo` makes on main, which both stack tests (native, compose) compare their main with: made once
    per session (stacks.Demo)."""
    from stacks import Demo

    d = Demo()
    yield d
    d.close()
