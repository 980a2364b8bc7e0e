"""infra/airflow/entry init on a real Airflow (the venv's, a SQLite database of its own): it makes the pool the DAGs'
setting names, with one slot, and removes a pool of the former name, tidemark_main_writers, which a stack made before
the rename still has; run again, it changes nothing. Compose's airflow-init and `infra/native/stack up` run it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENTRY = ROOT / "infra" / "airflow" / "entry"
FORMER = "tidemark_main_writers"


def _settings() -> dict[str, str]:
    out = {}
    for line in (ROOT / "infra" / "airflow" / "airflow.env").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, value = line.split("=", 1)
            out[name] = value
    return out


def _env(home: Path, pool: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AIRFLOW", "TIDEMARK_"))}
    # the venv's airflow first, as the stacks have it
    env["PATH"] = f"{Path(sys.executable).parent}:{env.get('PATH', '/usr/bin:/bin')}"
    env.update(AIRFLOW_HOME=str(home), AIRFLOW__CORE__LOAD_EXAMPLES="False", TIDEMARK_AIRFLOW_POOL=pool)
    return env


def _init(home: Path, pool: str) -> subprocess.CompletedProcess:
    run = subprocess.run(["bash", str(ENTRY), "init"], env=_env(home, pool), capture_output=True, text=True,
                         timeout=900)
    assert run.returncode == 0, run.stdout + run.stderr
    return run


def _pools(home: Path) -> dict[str, int]:
    run = subprocess.run(["airflow", "pools", "list", "-o", "json"], env=_env(home, "unused"), capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    return {p["pool"]: int(p["slots"]) for p in json.loads(run.stdout)}


def test_init_makes_the_writers_pool_and_removes_the_former_one(tmp_path):
    pool = _settings()["TIDEMARK_AIRFLOW_POOL"]
    assert pool != FORMER, "airflow.env names the pool by what it holds"

    # a stack made before the rename: its init made the pool under the former name
    _init(tmp_path, FORMER)
    assert _pools(tmp_path)[FORMER] == 1

    renamed = _init(tmp_path, pool)
    pools = _pools(tmp_path)
    assert pools[pool] == 1
    assert FORMER not in pools
    assert f"pool {FORMER} removed" in renamed.stdout

    again = _init(tmp_path, pool)
    assert "removed" not in again.stdout
    assert _pools(tmp_path) == pools
