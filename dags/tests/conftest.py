"""Test settings: Airflow gets a home of its own under target/, and dags/ on sys.path as Airflow's processes have it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DAGS = ROOT / "dags"
WORK = ROOT / "target" / "airflow-tests"

# before anything imports airflow: its configuration is read once, at import
os.environ["AIRFLOW_HOME"] = str(WORK / "parse-home")
os.environ["AIRFLOW__CORE__DAGS_FOLDER"] = str(DAGS)
os.environ["AIRFLOW__CORE__LOAD_EXAMPLES"] = "False"
os.environ.setdefault("AIRFLOW__CORE__UNIT_TEST_MODE", "True")
sys.path.insert(0, str(DAGS))
