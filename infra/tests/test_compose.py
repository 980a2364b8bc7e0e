"""The docker-compose stack's files, checked without running it (dags/tests/test_compose_stack.py runs it).

`docker compose config` (Compose v2; infra/compose/engine builds the plugin where the machine has none) validates and
resolves the file against a .env written by infra/compose/gen-env; the resolved stack is then held to its rules: every
image built here from a pinned Debian base, versions pinned once and equal to the native stack's pins, healthchecks and
healthy dependencies, no secret in the files, host ports on loopback, every secret required, every environment name the
jobs and DAGs read provided to the services that run them (names found by scanning the code), Nessie configured as the
embedded server is, Airflow's settings from the file the native stack reads too (infra/airflow/airflow.env), and the
Airflow image installing the native stack's pins and the build's jar directory. The Dockerfile is linted with hadolint.
The scripts the containers run are run here with stand-ins for the programs they drive (mc, airflow), to check what
they hand them.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
ENV_EXAMPLE = ROOT / ".env.example"
GEN_ENV = ROOT / "infra" / "compose" / "gen-env"
MINIO_SETUP = ROOT / "infra" / "compose" / "minio-setup"
DOCKERFILE = ROOT / "infra" / "images" / "Dockerfile"
AIRFLOW_ENTRY = ROOT / "infra" / "airflow" / "entry"
POSTGRES_ENTRY = ROOT / "infra" / "images" / "postgres-entry"
REQUIREMENTS = ROOT / "infra" / "airflow" / "requirements.txt"
CONSTRAINTS = ROOT / "infra" / "airflow" / "constraints.txt"
NATIVE_STACK = ROOT / "infra" / "native" / "stack"
AIRFLOW_SETTINGS = ROOT / "infra" / "airflow" / "airflow.env"
JAR_DIR = ROOT / "jobs" / "target"
SETTINGS_JAVA = ROOT / "jobs" / "src" / "main" / "java" / "io" / "tidemark" / "config" / "Setting.java"
NESSIE_JAVA = ROOT / "jobs" / "src" / "main" / "java" / "io" / "tidemark" / "services" / "NessieServer.java"
JAVA_MAIN = ROOT / "jobs" / "src" / "main" / "java"
DAGS = ROOT / "dags"
POM = ROOT / "pom.xml"

# Names the code reads that the stack must not set, and why.
NOT_PROVIDED = {
    "TIDEMARK_RUN_CONTEXT": "set per task by the DAGs (job_env), naming the DAG run",
    "TIDEMARK_TEST_CRASH": "the crash tests' hook; never set outside them",
    "TIDEMARK_SPARK_LOG4J": "the DAGs find it next to their own files, wherever dags/ is mounted",
}
# Settings the Spark nodes do not get: executors receive the S3 keys from the driver with the application's
# configuration (SparkSessions.conf), so the workers never hold them.
NOT_ON_SPARK_NODES = {"TIDEMARK_S3_ACCESS_KEY", "TIDEMARK_S3_SECRET_KEY"}
# an environment name that holds a secret (the S3 secret Nessie resolves is <name>.name / <name>.secret)
SECRET_NAME = re.compile(r"(PASSWORD|SECRET|SECRET_KEY|ACCESS[_-]KEY|FERNET_KEY|TOKEN|ROOT_USER)$|\.name$|\.secret$",
                         re.I)


# ---------------------------------------------------------------------------------------------------------------
# fixtures: a generated .env and the stack as docker-compose resolves it


_COMPOSE_READY = []


def docker_compose() -> list[str]:
    """`docker compose` (v2, the CLI plugin): infra/compose/engine builds it when the machine has none (no engine is
    needed to read a file)."""
    if not _COMPOSE_READY:
        run = subprocess.run([str(ROOT / "infra" / "compose" / "engine"), "compose"], capture_output=True, text=True,
                             timeout=1800)
        if run.returncode != 0:
            pytest.fail(f"no docker compose v2: {run.stderr.strip()}", pytrace=False)
        _COMPOSE_READY.append(True)
    return ["docker", "compose"]


def compose(env_file: Path, *args: str) -> subprocess.CompletedProcess:
    # a clean environment: only the env file decides the values (no TIDEMARK_* of the developer's shell)
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "LC_ALL", "DOCKER_CONFIG")}
    return subprocess.run(
        [*docker_compose(), "--project-directory", str(ROOT), "--env-file", str(env_file), "-f", str(COMPOSE), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.fixture(scope="module")
def env_file(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("compose") / ".env"
    run = subprocess.run([str(GEN_ENV), "--output", str(out)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return out


@pytest.fixture(scope="module")
def env_values(env_file) -> dict[str, str]:
    return read_env(env_file)


@pytest.fixture(scope="module")
def stack(env_file) -> dict:
    """The stack as docker compose resolves it, the optional profile included: anchors merged, variables interpolated
    with the generated .env."""
    run = compose(env_file, "--profile", "nessie-auth", "config")
    assert run.returncode == 0, f"docker compose config failed:\n{run.stderr}"
    return yaml.safe_load(run.stdout)


@pytest.fixture(scope="module")
def raw() -> dict:
    """The file as written (anchors merged by YAML, variables not interpolated)."""
    return yaml.safe_load(COMPOSE.read_text())


def read_env(path: Path) -> dict[str, str]:
    values = {}
    for line in path.read_text().splitlines():
        m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", line)
        if m:
            values[m.group(1)] = m.group(2)
    return values


def services(stack: dict) -> dict[str, dict]:
    return stack["services"]


def environment(service: dict) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):
        env = dict(e.split("=", 1) if "=" in e else (e, "") for e in env)
    return {k: "" if v is None else str(v) for k, v in env.items()}


def one_shot(service: dict) -> bool:
    return str(service.get("restart", "no")) == "no"


def airflow_services(stack: dict) -> dict[str, dict]:
    return {n: s for n, s in services(stack).items() if n.startswith("airflow-") and n != "airflow-db"}


def spark_services(stack: dict) -> dict[str, dict]:
    return {n: s for n, s in services(stack).items() if n.startswith("spark-")}


def pom_property(name: str) -> str:
    m = re.search(rf"<{re.escape(name)}>([^<]+)</{re.escape(name)}>", POM.read_text())
    assert m, f"pom.xml has no property {name}"
    return m.group(1).strip()


def requirement_pin(name: str) -> str:
    m = re.search(rf"^{re.escape(name)}==(\S+)", REQUIREMENTS.read_text(), re.M)
    assert m, f"{REQUIREMENTS} does not pin {name}"
    return m.group(1)


def dockerfile_args(path: Path = DOCKERFILE) -> dict[str, str]:
    """The Dockerfile's global build arguments (before its first FROM) and their defaults."""
    args = {}
    for line in path.read_text().splitlines():
        if line.startswith("FROM "):
            break
        m = re.match(r"ARG (\w+)=(\S+)$", line)
        if m:
            args[m.group(1)] = m.group(2)
    return args


def dockerfile_stages(path: Path) -> dict[str, dict]:
    """Each stage of a Dockerfile: its base image and its instructions (continuation lines joined, the global build
    arguments' defaults put in for ${NAME})."""
    args = dockerfile_args(path)
    text = re.sub(r"\$\{(\w+)\}", lambda m: args.get(m.group(1), m.group(0)), re.sub(r"\\\n", " ", path.read_text()))
    stages, current = {}, None
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = re.match(r"FROM\s+(\S+)(?:\s+AS\s+(\S+))?", line, re.I)
        if m:
            current = {"from": m.group(1), "lines": []}
            stages[m.group(2) or f"stage{len(stages)}"] = current
        elif current is not None:
            current["lines"].append(line)
    return stages


# ---------------------------------------------------------------------------------------------------------------
# the file is valid, and refuses to run without secrets


def test_config_is_valid_with_a_generated_env(env_file):
    run = compose(env_file, "config", "-q")
    assert run.returncode == 0, f"docker compose config -q failed:\n{run.stderr}"


def test_config_refuses_to_run_without_the_secrets(tmp_path):
    empty = tmp_path / ".env"
    empty.write_text("")
    run = compose(empty, "config", "-q")
    assert run.returncode != 0, "the stack resolved with no secret at all"
    assert "infra/compose/gen-env" in run.stderr, f"the error does not say how to make .env:\n{run.stderr}"


def compose_text() -> str:
    """docker-compose.yml without its comments (which may quote the syntax they explain)."""
    return "\n".join(re.sub(r"(^|\s)#.*$", "", line) for line in COMPOSE.read_text().splitlines())


def test_the_nessie_auth_profile_resolves(env_file):
    run = compose(env_file, "--profile", "nessie-auth", "config", "--services")
    assert run.returncode == 0 and "nessie-auth" in run.stdout.split(), run.stderr


def test_every_secret_is_required_documented_and_generated(raw, env_values):
    text = compose_text()
    # ${VAR...} is docker-compose's interpolation; $${VAR} an escaped dollar for the container's shell
    required = set(re.findall(r"(?<!\$)\$\{([A-Z0-9_]+):\?", text))
    example = ENV_EXAMPLE.read_text()
    blank = set(re.findall(r"^([A-Z][A-Z0-9_]*)=$", example, re.M))
    assert required == blank, (
        "the variables docker-compose.yml requires (${VAR:?...}) and the secrets .env.example lists (VAR= lines, "
        f"which gen-env fills) differ: only required {sorted(required - blank)}, only listed {sorted(blank - required)}"
    )
    for name in sorted(required):
        assert env_values.get(name), f"gen-env left {name} empty"
    values = [env_values[n] for n in required]
    assert len(set(values)) == len(values), "gen-env gave two secrets the same value"
    # a secret may never have a default: every use of it is a required reference
    for name in sorted(required):
        for use in re.findall(rf"\$\{{{name}(:?[-?][^}}]*)?\}}", text):
            assert use.startswith(":?"), f"{name} is used with a default or unchecked ({use!r}) in docker-compose.yml"
    # every variable the file uses is documented in .env.example (as a secret or as a commented setting)
    used = set(re.findall(r"(?<!\$)\$\{([A-Z0-9_]+)", text))
    documented = set(re.findall(r"^#?([A-Z][A-Z0-9_]*)=", example, re.M))
    missing = used - documented - embedded_only_settings()
    assert not missing, f".env.example does not document {sorted(missing)}"
    assert not {n for n in used if n.startswith("TIDEMARK_TABLE_")}, "table names are the pipeline file's"


def embedded_only_settings() -> set[str]:
    # passed through for completeness, meaningless with the stack's own services: documented by `tidemark config`
    return {"TIDEMARK_NESSIE_PORT", "TIDEMARK_NESSIE_MANAGEMENT_PORT", "TIDEMARK_NESSIE_JAVA", "TIDEMARK_S3_PORT",
            "TIDEMARK_ICEBERG_REST_URI", "TIDEMARK_SPARK_MASTER"}


def test_gen_env_writes_an_owner_only_file_and_never_overwrites(tmp_path, env_file, env_values):
    assert stat.S_IMODE(env_file.stat().st_mode) == 0o600, "the generated .env is readable by others"
    again = subprocess.run([str(GEN_ENV), "--output", str(env_file)], capture_output=True, text=True, timeout=60)
    assert again.returncode != 0 and "exists" in again.stderr, "gen-env overwrote an existing .env"
    assert read_env(env_file) == env_values
    other = tmp_path / "other.env"
    subprocess.run([str(GEN_ENV), "--output", str(other)], check=True, capture_output=True, timeout=60)
    second = read_env(other)
    assert all(second[k] != v for k, v in env_values.items() if not k.startswith("#") and v), "secrets repeat"
    # Airflow refuses a malformed Fernet key at start: check it with the library Airflow uses
    from cryptography.fernet import Fernet

    Fernet(env_values["AIRFLOW_FERNET_KEY"])


# ---------------------------------------------------------------------------------------------------------------
# images: exact tags, the versions we pin and test with


def test_every_image_is_built_here_from_a_pinned_debian_base(stack):
    built = {}
    for name, s in services(stack).items():
        image = s.get("image", "")
        assert re.fullmatch(r"tidemark-[a-z]+:local", image), f"{name}: {image!r} is not an image built here"
        # a service without a build section of its own would have compose pull its image from a registry
        assert "build" in s, f"{name} does not build its image"
        assert s["build"]["dockerfile"].endswith("infra/images/Dockerfile"), name
        built.setdefault(image, set()).add(s["build"]["target"])
    # one target per image
    assert all(len(targets) == 1 for targets in built.values()), built
    stages = dockerfile_stages(DOCKERFILE)
    for stage, st in stages.items():
        base = st["from"]
        if base in stages or base == "scratch" or base.startswith("jars-$"):
            continue  # an earlier stage
        # the official slim image of a Debian release, pinned to its date (infra/images/local-base makes it here)
        assert re.fullmatch(r"debian:(bookworm|trixie)-\d{8}-slim", base), f"stage {stage} starts from {base!r}"


def test_images_match_the_pinned_versions(stack):
    stages = dockerfile_stages(DOCKERFILE)
    args = dockerfile_args()
    java = pom_property("maven.compiler.release")
    # the jobs' Java builds and runs the jars; Spark is pyspark's, which the constraints pin to the jobs' Spark
    assert f"openjdk-{java}-jdk-headless" in " ".join(stages["jars-build"]["lines"])
    assert f"openjdk-{java}-jre-headless" in " ".join(stages["pyspark"]["lines"])
    assert requirement_pin("pyspark") == pom_property("spark.version"), "pyspark and the jobs' Spark differ"
    assert re.search(r"^pyspark==" + re.escape(pom_property("spark.version")) + "$", CONSTRAINTS.read_text(), re.M)
    pyspark = " ".join(stages["pyspark"]["lines"])
    assert "-c /opt/tidemark/infra/airflow/constraints.txt pyspark" in pyspark, "pyspark is not the constraints' pin"
    assert stages["spark"]["from"] == stages["airflow"]["from"] == "pyspark", "the nodes and the drivers differ"
    # Nessie: the runner jar of pom.xml's nessie-server.version, which the Maven build copies to services/
    assert any("/src/jobs/target/services/nessie-server.jar" in line for line in stages["nessie"]["lines"])
    assert "<artifactId>nessie-quarkus</artifactId>" in (ROOT / "jobs" / "pom.xml").read_text()
    # PostgreSQL of the major pinned once, MinIO and mc at commits the module proxy serves
    assert f"postgresql-{args['POSTGRES_MAJOR']}" in " ".join(stages["postgres"]["lines"])
    for name in ("MINIO_VERSION", "MC_VERSION"):
        assert re.fullmatch(r"v0\.0\.0-\d{14}-[0-9a-f]{12}", args[name]), f"{name} is not a pseudo-version"
    build = " ".join(stages["minio-build"]["lines"])
    assert f'go-install-release github.com/minio/minio "{args["MINIO_VERSION"]}"' in build
    assert f'go-install-release github.com/minio/mc "{args["MC_VERSION"]}"' in build
    for name, target in (("spark-master", "spark"), ("spark-worker", "spark"), ("minio", "minio"),
                         ("nessie", "nessie"), ("nessie-db", "postgres")):
        assert services(stack)[name]["build"].get("target") == target, name
    for name in airflow_services(stack):
        assert services(stack)[name]["build"].get("target") == "airflow"


def test_every_version_is_written_once():
    """A version pinned in the Dockerfile is written nowhere else in the stack's files (pom.xml and the Airflow pins
    have their own, which the Dockerfile does not repeat)."""
    args = dockerfile_args()
    others = "\n".join(p.read_text() for p in (COMPOSE, ENV_EXAMPLE, ROOT / "infra" / "images" / "local-base"))
    for name, value in args.items():
        if re.search(r"\d[.-]|[.-]\d", value):
            assert value not in others, f"{name}={value} is written again outside the Dockerfile"
    major = args["POSTGRES_MAJOR"]
    assert not re.search(rf"postgres(ql)?[:-]{major}\b", others), "PostgreSQL's major is written again"
    dockerfile = DOCKERFILE.read_text()
    pins = (pom_property("spark.version"), pom_property("nessie-server.version"), requirement_pin("apache-airflow"))
    for pin in pins:
        assert pin not in dockerfile, f"the Dockerfile repeats {pin}, which pom.xml or requirements.txt pins"


def test_airflow_image_installs_the_native_stacks_pins():
    stages = dockerfile_stages(DOCKERFILE)
    stage = stages["airflow"]
    lines = "\n".join(stage["lines"])
    copied = " ".join(l for st in ("pyspark", "airflow") for l in stages[st]["lines"] if l.startswith("COPY"))
    assert "infra/airflow/requirements.txt" in copied and "infra/airflow/constraints.txt" in copied
    dest = "/opt/tidemark/infra/airflow"
    assert re.search(
        rf"pip install [^&]*-r {re.escape(dest)}/requirements\.txt -c {re.escape(dest)}/constraints\.txt", lines
    ), "the image does not install requirements.txt with constraints.txt"
    assert re.search(r"pip check", lines), "the image does not check the installed set"
    # the native stack's venv comes from the very same two files
    venv_script = (ROOT / "infra" / "airflow" / "venv").read_text()
    assert '"$here/requirements.txt" "$here/constraints.txt"' in venv_script
    python_venv = (ROOT / "infra" / "python-venv").read_text()
    assert 'pip_args=(-r "$1")' in python_venv and 'pip_args+=(-c "$2")' in python_venv
    # anything else pip installs in the image is pinned exactly
    for extra in re.findall(r"pip install [^&]*?((?:\"?[\w.-]+==[\w.]+\"?\s*)+)(?:&&|$)", lines):
        for pkg in extra.split():
            assert re.fullmatch(r"[\w.-]+==[\w.]+", pkg.strip('"')), f"unpinned package {pkg!r} in the image"
    # the jars come from the jars stage of the same checkout, not from outside
    jars = [l for l in stage["lines"] if "/opt/tidemark/jars" in l and l.startswith("COPY")]
    assert jars and all("--from=jars" in l for l in jars)


def test_the_build_context_holds_only_what_the_dockerfile_copies():
    lines = [l.strip() for l in (ROOT / ".dockerignore").read_text().splitlines() if l.strip() and not l.startswith("#")]
    assert lines[0] == "*", ".dockerignore must exclude everything first (.env, .venv, target stay out of the context)"
    allowed = [l[1:].rstrip("/") for l in lines[1:]]
    assert all(l.startswith("!") for l in lines[1:])
    copied = set()
    for stage in dockerfile_stages(DOCKERFILE).values():
        for line in stage["lines"]:
            parts = line.split()
            if parts[0] in ("COPY", "ADD") and not any(p.startswith("--from") for p in parts):
                copied |= {p.rstrip("/") for p in parts[1:-1] if not p.startswith("--")}
    assert copied, "the scan of the Dockerfile found no COPY"
    for src in sorted(copied):
        assert any(src == a or src.startswith(a + "/") for a in allowed), f"{src} is copied but .dockerignore drops it"
    for a in allowed:
        assert any(c == a or c.startswith(a + "/") for c in copied), f".dockerignore lets {a} in, which no COPY uses"


# ---------------------------------------------------------------------------------------------------------------
# health and order


def test_long_running_services_have_healthchecks_and_wait_for_healthy_ones(stack):
    svc = services(stack)
    for name, s in svc.items():
        if one_shot(s):
            assert "healthcheck" not in s, f"{name} exits when done; it needs no healthcheck"
            continue
        test = (s.get("healthcheck") or {}).get("test")
        assert test and test != ["NONE"], f"{name} runs for good but has no healthcheck"
    for name, s in svc.items():
        deps = s.get("depends_on") or {}
        assert isinstance(deps, dict), f"{name}: depends_on without conditions"
        for dep, how in deps.items():
            want = "service_completed_successfully" if one_shot(svc[dep]) else "service_healthy"
            assert how.get("condition") == want, f"{name} depends on {dep} with {how}, not {want}"


def test_ports_are_bound_to_loopback(stack):
    published = 0
    for name, s in services(stack).items():
        for p in s.get("ports", []):
            published += 1
            host_ip = p.get("host_ip") if isinstance(p, dict) else p.split(":")[0]
            assert host_ip == "127.0.0.1", f"{name} publishes {p} beyond loopback by default"
    assert published >= 5
    assert "ports" not in services(stack)["spark-worker"], "a fixed host port stops --scale spark-worker=N"
    assert "container_name" not in services(stack)["spark-worker"]


def test_the_bind_address_is_the_users_choice(tmp_path, env_file):
    opened = tmp_path / ".env"
    opened.write_text(env_file.read_text() + "TIDEMARK_BIND_ADDRESS=0.0.0.0\n")
    run = compose(opened, "config")
    assert run.returncode == 0, run.stderr
    ports = [p for s in yaml.safe_load(run.stdout)["services"].values() for p in s.get("ports", [])]
    assert ports and all((p.get("host_ip") if isinstance(p, dict) else p.split(":")[0]) == "0.0.0.0" for p in ports)


# ---------------------------------------------------------------------------------------------------------------
# secrets


def test_no_secret_literal_in_the_files(raw):
    for name, s in raw["services"].items():
        for key, value in environment(s).items():
            if SECRET_NAME.search(key) and not value.startswith("urn:nessie-secret:"):
                assert re.fullmatch(r"\$\{[A-Z0-9_]+:\?[^}]+\}", value), (
                    f"{name}: {key} is not a required reference to .env but {value!r}"
                )
            if "://" in value and "@" in value:
                userinfo = value.split("://", 1)[1].split("@", 1)[0]
                assert re.fullmatch(r"[\w.-]+:\$\{[A-Z0-9_]+:\?[^}]+\}", userinfo), f"{name}: {key} embeds a password"
    for f in [COMPOSE, ENV_EXAMPLE, DOCKERFILE, MINIO_SETUP, AIRFLOW_ENTRY, GEN_ENV, AIRFLOW_SETTINGS, POSTGRES_ENTRY,
              ROOT / "infra" / "images" / "local-base", ROOT / "infra" / "compose" / "engine"]:
        text = f.read_text().lower()
        for default in ("minioadmin", "airflow:airflow", "admin:admin@", "password=airflow", "changeme"):
            assert default not in text, f"{f.name} holds the default credential {default!r}"


def test_the_jobs_never_get_minios_root_credentials(stack):
    for name, s in services(stack).items():
        env = environment(s)
        if name in ("minio", "minio-setup"):
            continue
        assert not {"MINIO_ROOT_USER", "MINIO_ROOT_PASSWORD"} & set(env), f"{name} gets MinIO's root credentials"


def run_minio_setup(tmp_path: Path, env_values: dict[str, str], attached: bool) -> tuple[list[str], str, Path]:
    """The setup script with a stand-in for mc that records what it is asked, on a PATH with only mktemp, cat and rm
    besides mc: what the script may use (the live compose test runs it against MinIO)."""
    log, policy = tmp_path / "mc.log", tmp_path / "policy.json"
    log.unlink(missing_ok=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for tool in ("mktemp", "cat", "rm"):
        target = bin_dir / tool
        if not target.exists():
            target.symlink_to(shutil.which(tool))
    (bin_dir / "mc").write_text(textwrap.dedent(f"""\
        #!/bin/sh
        echo "ARGV $*" >> {log}
        echo "ENV $MC_HOST_tidemark" >> {log}
        if [ "$1 $2 $3" = "admin policy create" ]; then /bin/cp "$6" {policy}; fi
        if [ "$1 $2" = "admin user" ] && [ "$3" = "info" ] && [ -n "$ATTACHED" ]; then echo "PolicyName: tidemark-jobs"; fi
        exit 0
        """))
    (bin_dir / "mc").chmod(0o755)
    env = {"PATH": str(bin_dir), **{k: env_values[k] for k in (
        "MINIO_ROOT_USER", "MINIO_ROOT_PASSWORD", "TIDEMARK_S3_ACCESS_KEY", "TIDEMARK_S3_SECRET_KEY")}}
    env.update(TIDEMARK_LANDING_BUCKET="land-x", TIDEMARK_WAREHOUSE_BUCKET="wh-x")
    if attached:
        env["ATTACHED"] = "1"
    run = subprocess.run(["/bin/sh", str(MINIO_SETUP)], env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    calls = [l[5:] for l in log.read_text().splitlines() if l.startswith("ARGV ")]
    return calls, log.read_text(), policy


def test_minio_setup_makes_private_buckets_and_a_scoped_user(tmp_path, env_values):
    calls, log, policy = run_minio_setup(tmp_path, env_values, attached=False)
    # the resident driver's warm-up lands in a bucket of its own, never in the pipeline's
    for bucket in ("land-x", "wh-x", "land-x-warm-up"):
        assert f"mb --ignore-existing tidemark/{bucket}" in calls
        assert f"anonymous set none tidemark/{bucket}" in calls
    attach = f"admin policy attach tidemark tidemark-jobs --user {env_values['TIDEMARK_S3_ACCESS_KEY']}"
    assert attach in calls
    root_secret = env_values["MINIO_ROOT_PASSWORD"]
    assert not any(root_secret in c for c in calls), "MinIO's root password was on mc's command line"
    assert f"ENV http://{env_values['MINIO_ROOT_USER']}:{root_secret}@minio:9000" in log
    doc = json.loads(policy.read_text())
    resources, actions = set(), set()
    for st in doc["Statement"]:
        assert st["Effect"] == "Allow"
        resources |= set(st["Resource"])
        actions |= set(st["Action"])
    assert resources == {f"arn:aws:s3:::{b}{objects}" for b in ("land-x", "wh-x", "land-x-warm-up")
                         for objects in ("", "/*")}
    assert not any("*" in a or a.startswith(("admin:", "s3:CreateBucket", "s3:DeleteBucket", "s3:PutBucket"))
                   for a in actions), f"the jobs' policy grants more than object access: {sorted(actions)}"
    # run again on a MinIO where the user has the policy already: nothing is attached twice (mc would fail)
    again, _, _ = run_minio_setup(tmp_path, env_values, attached=True)
    assert attach not in again and f"mb --ignore-existing tidemark/land-x" in again


def test_api_server_entry_writes_the_admin_password_for_airflow_only(tmp_path):
    """The entry script with a stand-in `airflow` that shows the password file the real one would read."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "airflow").write_text('#!/bin/sh\nstat -c "%a" "$AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_PASSWORDS_FILE"\n'
                                     'cat "$AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_PASSWORDS_FILE"\necho " ARGS $*"\n')
    (bin_dir / "airflow").chmod(0o755)
    python_dir = Path(sys.executable).parent
    pw_file = tmp_path / "passwords.json"
    env = {"PATH": f"{bin_dir}:{python_dir}:/usr/bin:/bin", "AIRFLOW_ADMIN_PASSWORD": 'p"w\\x',
           "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_PASSWORDS_FILE": str(pw_file)}
    run = subprocess.run(["bash", str(AIRFLOW_ENTRY), "api-server"], env=env, capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, run.stderr
    mode, rest = run.stdout.split("\n", 1)
    assert mode == "600"
    assert json.loads(rest.split(" ARGS ")[0]) == {"admin": 'p"w\\x'}
    assert rest.strip().endswith("ARGS api-server")
    bad = subprocess.run(["bash", str(AIRFLOW_ENTRY), "webserver"], env=env, capture_output=True, text=True)
    assert bad.returncode == 2 and "usage" in bad.stderr


# ---------------------------------------------------------------------------------------------------------------
# the same settings as the native stack: the jobs' and the DAGs', Airflow's from the file both read


def settings_names() -> list[str]:
    names = re.findall(r'^\s+[A-Z0-9_]+\("(TIDEMARK_[A-Z0-9_]+)"', SETTINGS_JAVA.read_text(), re.M)
    assert len(names) > 20, "the scan of Setting.java found too few settings"
    return names


def names_read_by_the_jobs() -> set[str]:
    """Every TIDEMARK_* the Java code reads: the settings and what it asks System.getenv for (constants resolved)."""
    names = set(settings_names())
    constants = {}
    sources = list(JAVA_MAIN.rglob("*.java"))
    for f in sources:
        constants.update(re.findall(r'static final String (\w+) = "(TIDEMARK_[A-Z0-9_]+)"', f.read_text()))
    for f in sources:
        for arg in re.findall(r"System\.getenv\(([^)]*)\)", f.read_text()):
            arg = arg.strip()
            if arg.startswith('"'):
                names.add(arg.strip('"'))
            elif arg.split(".")[-1] in constants:
                names.add(constants[arg.split(".")[-1]])
    return {n for n in names if n.startswith("TIDEMARK_")}


def names_read_by_the_dags() -> set[str]:
    names = set()
    files = [p for p in DAGS.rglob("*.py") if "tests" not in p.relative_to(DAGS).parts]
    assert files
    for f in files:
        text = f.read_text()
        names |= set(re.findall(r'os\.(?:environ\.get|getenv)\(\s*"([A-Z][A-Z0-9_]*)"', text))
        names |= set(re.findall(r'os\.environ\[\s*"([A-Z][A-Z0-9_]*)"\s*\]', text))
        names |= set(re.findall(r'_setting\(\s*"([A-Z][A-Z0-9_]*)"', text))
    assert "TIDEMARK_JAR_DIR" in names, "the scan of dags/ found nothing"
    return {n for n in names if n.startswith(("TIDEMARK_", "AIRFLOW_"))}


def test_every_name_the_jobs_and_dags_read_reaches_the_services_that_run_them(stack):
    wanted = (names_read_by_the_jobs() | names_read_by_the_dags()) - set(NOT_PROVIDED)
    assert wanted
    for name, s in airflow_services(stack).items():
        missing = wanted - set(environment(s))
        assert not missing, f"{name} (parses the DAGs or runs their tasks) lacks {sorted(missing)}"
    settings = set(settings_names()) - NOT_ON_SPARK_NODES
    for name, s in spark_services(stack).items():
        env = environment(s)
        missing = settings - set(env)
        assert not missing, f"{name} (runs executors) lacks {sorted(missing)}"
        assert not NOT_ON_SPARK_NODES & set(env), f"{name} holds the S3 keys; executors get them from the driver"
    for name in NOT_PROVIDED:
        for sname, s in services(stack).items():
            assert name not in environment(s), f"{sname} sets {name}: {NOT_PROVIDED[name]}"


def test_the_jobs_settings_point_at_the_stacks_services(stack):
    svc = services(stack)
    for name, s in airflow_services(stack).items():
        env = environment(s)
        for key in ("TIDEMARK_NESSIE_URI", "TIDEMARK_S3_ENDPOINT"):
            host = env[key].split("://", 1)[1].split(":", 1)[0]
            assert host in svc and not one_shot(svc[host]), f"{name}: {key}={env[key]} names no service"
        assert env["TIDEMARK_CHECKPOINT_ROOT"].startswith("s3a://"), "checkpoints every Spark node sees are on S3"
        assert env["TIDEMARK_JAR_DIR"] == "/opt/tidemark/jars"
        dags_folder = env["AIRFLOW__CORE__DAGS_FOLDER"]
        mounts = [v for v in s.get("volumes", []) if volume_target(v) == dags_folder]
        assert mounts and Path(volume_source(mounts[0])).resolve() == DAGS, f"{name}: the DAG folder is not dags/"
    master = svc["spark-master"]["command"]
    assert master[master.index("--host") + 1] == "spark-master" and master[master.index("--port") + 1] == "7077"
    assert "spark://spark-master:7077" in svc["spark-worker"]["command"]


def volume_source(v) -> str:
    return v["source"] if isinstance(v, dict) else v.split(":")[0]


def volume_target(v) -> str:
    return v["target"] if isinstance(v, dict) else v.split(":")[1]


def test_spark_default_points_at_the_spark_master(stack):
    """The connection the DAGs' SparkSubmitOperator uses, resolved by the Spark provider's own hook."""
    scheduler = environment(services(stack)["airflow-scheduler"])
    conn_id = scheduler["TIDEMARK_SPARK_CONN_ID"]
    value = scheduler[f"AIRFLOW_CONN_{conn_id.upper()}"]
    probe = textwrap.dedent(f"""\
        from airflow.providers.apache.spark.hooks.spark_submit import SparkSubmitHook
        c = SparkSubmitHook(conn_id={conn_id!r})._resolve_connection()
        print(c["master"], c["deploy_mode"])
        """)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AIRFLOW", "TIDEMARK_"))}
    env.update({f"AIRFLOW_CONN_{conn_id.upper()}": value, "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
                "AIRFLOW_HOME": str(ROOT / "target" / "compose-tests" / "airflow-home")})
    run = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split() == ["spark://spark-master:7077", "client"]


def airflow_options() -> set[str]:
    """Every AIRFLOW__SECTION__KEY the pinned Airflow knows (its configuration template), asked in a clean process."""
    probe = ("from airflow.configuration import conf\n"
             "for section, d in conf.configuration_description.items():\n"
             "    for key in d.get('options', {}):\n"
             "        print(f'AIRFLOW__{section.upper()}__{key.upper()}')\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AIRFLOW", "TIDEMARK_"))}
    env["AIRFLOW_HOME"] = str(ROOT / "target" / "compose-tests" / "airflow-home")
    run = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    options = set(run.stdout.split())
    assert "AIRFLOW__CORE__EXECUTOR" in options
    return options


def image_jar_dir(tmp: Path) -> Path:
    """/opt/tidemark/jars as the Airflow image has it: what the Dockerfile's COPY lines put there, taken from this
    checkout's jobs/target (the jars linked, not copied)."""
    image_dir = "/opt/tidemark/jars/"
    staged = tmp / "jars"
    staged.mkdir()
    for line in dockerfile_stages(DOCKERFILE)["airflow"]["lines"]:
        parts = line.split()
        if parts[0] != "COPY" or "--from=jars" not in parts or not parts[-1].startswith(image_dir):
            continue
        dest = parts[-1][len(image_dir):]
        for src in (p for p in parts[1:-1] if not p.startswith("--")):
            assert src.startswith("/src/jobs/target/"), f"the image's jar directory gets {src}, not from the build"
            built = JAR_DIR / src.removeprefix("/src/jobs/target/").rstrip("/")
            assert built.exists(), f"the image copies {src}, which jobs/target lacks (run mvn package first)"
            if built.is_dir():
                target = staged / dest
            else:
                target = staged / dest / built.name if not dest or dest.endswith("/") else staged / dest
            target.parent.mkdir(parents=True, exist_ok=True)
            if built.is_file() and built.stat().st_size < 1 << 20:
                shutil.copy2(built, target)
            else:
                target.symlink_to(built)
    return staged


def test_the_dags_parse_in_the_scheduler_environment_and_submit_to_the_cluster(stack, tmp_path):
    """dags/ parsed by the pinned Airflow with the scheduler's environment from the compose file (its database swapped
    for SQLite: parsing needs none; its jar directory staged as the image has it): no import error, spark-submit tasks
    on spark_default with the image's jars, the jobs' settings in env_vars and no secret there (they reach the jobs
    from the container's environment); the tasks that run the command run the launcher of the jar directory."""
    jars = image_jar_dir(tmp_path)
    launcher = jars / "tidemark"
    assert os.access(launcher, os.X_OK) and not launcher.is_symlink(), "the image lacks the launcher next to the jar"
    assert launcher.read_text() == (ROOT / "jobs" / "src" / "main" / "launcher" / "tidemark").read_text()
    settings = environment(services(stack)["airflow-scheduler"])
    assert settings["TIDEMARK_JAR_DIR"] == "/opt/tidemark/jars"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AIRFLOW", "TIDEMARK_"))}
    env.update(settings)
    home = ROOT / "target" / "compose-tests" / "airflow-home"
    env.update({"AIRFLOW_HOME": str(home), "AIRFLOW__CORE__DAGS_FOLDER": str(DAGS),
                "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": f"sqlite:///{home}/parse.db", "TIDEMARK_JAR_DIR": str(jars)})
    probe = textwrap.dedent("""\
        import json, sys
        sys.path.insert(0, %r)  # as Airflow's processes have the DAG folder (dags/tests/conftest.py does the same)
        from airflow.dag_processing.dagbag import DagBag
        from airflow.providers.apache.spark.operators.spark_submit import SparkSubmitOperator
        from airflow.providers.standard.operators.bash import BashOperator
        bag = DagBag(%r)
        out = {"errors": {k: str(v)[-300:] for k, v in bag.import_errors.items()}, "submits": [], "commands": []}
        for dag in bag.dags.values():
            for t in dag.tasks:
                if isinstance(t, SparkSubmitOperator):
                    out["submits"].append({"task": dag.dag_id + "." + t.task_id, "conn": t._conn_id,
                                           "application": t.application, "jars": t.jars, "env": t.env_vars})
                elif isinstance(t, BashOperator):
                    out["commands"].append(t.bash_command)
        print(json.dumps(out))
        """) % (str(DAGS), str(DAGS))
    run = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["errors"] == {}
    assert len(out["submits"]) >= 2, "the scan found no spark-submit task"
    expected_jars = {f"{jars}/lib/hadoop-aws-{pom_property('hadoop.version')}.jar",
                     f"{jars}/lib/aws-java-sdk-bundle-{pom_property('aws-java-sdk.version')}.jar"}
    for submit in out["submits"]:
        assert submit["conn"] == settings["TIDEMARK_SPARK_CONN_ID"]
        assert submit["application"] == f"{jars}/tidemark-spark.jar"
        assert set(submit["jars"].split(",")) == expected_jars, submit["jars"]
        assert all(Path(j).is_file() for j in expected_jars), "the image's lib/ lacks an s3a jar"
        job_env = submit["env"]
        for key in ("TIDEMARK_NESSIE_URI", "TIDEMARK_S3_ENDPOINT", "TIDEMARK_CHECKPOINT_ROOT", "TIDEMARK_WAREHOUSE"):
            assert job_env[key] == settings[key], f"{submit['task']}: {key}"
        assert not {"TIDEMARK_S3_ACCESS_KEY", "TIDEMARK_S3_SECRET_KEY"} & set(job_env), "a secret in rendered fields"
    assert out["commands"] and all(str(launcher) in c for c in out["commands"]), out["commands"]


def airflow_settings() -> dict[str, str]:
    """infra/airflow/airflow.env: Airflow's settings of both stacks, NAME=value a line."""
    settings = {}
    for line in AIRFLOW_SETTINGS.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, value = line.split("=", 1)
            settings[name] = value
    return settings


def test_the_airflow_settings_are_plain_known_and_no_secret():
    settings = airflow_settings()
    assert {"AIRFLOW__CORE__PARALLELISM", "TIDEMARK_AIRFLOW_POOL", "TIDEMARK_SPARK_CONN_ID"} <= set(settings)
    for name, value in settings.items():
        # docker-compose 1 and 2 and the native stack take a value as it is written only without these
        assert re.fullmatch(r"[A-Z][A-Z0-9_]*", name) and re.fullmatch(r"[^\s'\"$#\\]+", value), f"{name}={value}"
        assert not SECRET_NAME.search(name), f"{name}: secrets come from .env (compose) or are generated (native)"
    options = airflow_options()
    unknown = {n for n in settings if n.startswith("AIRFLOW__") and n not in options}
    assert not unknown, f"options Airflow {requirement_pin('apache-airflow')} does not have: {unknown}"
    # the rest are the DAGs' own settings
    assert {n for n in settings if not n.startswith("AIRFLOW__")} <= names_read_by_the_dags()


def test_compose_gives_every_airflow_service_the_settings_file(stack):
    settings = airflow_settings()
    for name, s in airflow_services(stack).items():
        env = environment(s)
        assert {k: env.get(k) for k in settings} == settings, f"{name} does not run with infra/airflow/airflow.env"


def native_stack_env(tmp_path: Path, **given: str) -> dict[str, str]:
    """The environment `infra/native/stack env` prints, evaluated in a shell that has only `given` and the machine's
    basics (no AIRFLOW* or TIDEMARK_* of the caller)."""
    kept = ("TIDEMARK_PYTHON", "TIDEMARK_AIRFLOW_VENV")
    env = {k: v for k, v in os.environ.items() if k in kept or not k.startswith(("AIRFLOW", "TIDEMARK_"))}
    env.update(given, TIDEMARK_HOME=str(tmp_path / "home"))
    run = subprocess.run(["bash", "-c", 'eval "$("$0" env)" && env -0', str(NATIVE_STACK)], env=env,
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-2000:]
    return dict(v.split("=", 1) for v in run.stdout.split("\0") if "=" in v)


def test_the_native_stack_runs_with_the_settings_file_and_the_callers_values_win(tmp_path):
    settings = airflow_settings()
    native = native_stack_env(tmp_path)
    assert {k: native.get(k) for k in settings} == settings
    # the connection the DAGs' setting names: local[2] on this machine
    conn = json.loads(native[f"AIRFLOW_CONN_{settings['TIDEMARK_SPARK_CONN_ID'].upper()}"])
    assert conn == {"conn_type": "spark", "host": "local[2]"}
    assert native["AIRFLOW__DATABASE__SQL_ALCHEMY_CONN"].startswith("sqlite:///")
    given = {"AIRFLOW__CORE__PARALLELISM": "2", "TIDEMARK_AIRFLOW_POOL": "other_writers",
             "TIDEMARK_SPARK_CONN_ID": "spark_other"}
    native = native_stack_env(tmp_path, **given)
    assert {k: native.get(k) for k in settings} == dict(settings, **given)
    assert json.loads(native["AIRFLOW_CONN_SPARK_OTHER"])["host"] == "local[2]"


def test_airflow_runs_in_compose_with_postgres_and_the_services_names(stack):
    """What compose sets apart from the settings file: its database, secrets, URLs and host names."""
    options = airflow_options()
    for name, s in airflow_services(stack).items():
        env = environment(s)
        unknown = {k for k in env if k.startswith("AIRFLOW__") and k not in options}
        assert not unknown, f"{name} sets options Airflow {requirement_pin('apache-airflow')} does not have: {unknown}"
        assert env["AIRFLOW__CORE__EXECUTOR"] == "LocalExecutor"
        assert env["AIRFLOW__DATABASE__SQL_ALCHEMY_CONN"].startswith("postgresql+psycopg2://airflow:")
        assert env["AIRFLOW__CORE__EXECUTION_API_SERVER_URL"].startswith("http://airflow-apiserver:8080/")
        assert services(stack)["airflow-apiserver"].get("hostname") == "airflow-apiserver"
        assert env["SPARK_LOCAL_HOSTNAME"] == services(stack)["airflow-scheduler"]["hostname"], (
            "executors reach the drivers in the scheduler's container by this name"
        )
    # same secrets everywhere: task tokens signed by one component are checked by another
    for key in ("AIRFLOW__API_AUTH__JWT_SECRET", "AIRFLOW__CORE__FERNET_KEY", "AIRFLOW__API__SECRET_KEY"):
        assert len({environment(s)[key] for s in airflow_services(stack).values()}) == 1


def test_init_makes_the_pool_the_setting_names(tmp_path):
    """infra/airflow/entry init (compose's airflow-init; the native stack's `up` runs it too) with a stand-in `airflow`
    that records what it is asked: the pool is TIDEMARK_AIRFLOW_POOL's, one slot; without the setting, init fails."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "airflow.log"
    (bin_dir / "airflow").write_text(f'#!/bin/sh\necho "$*" >> {log}\n')
    (bin_dir / "airflow").chmod(0o755)
    for pool in (airflow_settings()["TIDEMARK_AIRFLOW_POOL"], "other_writers"):
        log.unlink(missing_ok=True)
        env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "TIDEMARK_AIRFLOW_POOL": pool}
        run = subprocess.run(["bash", str(AIRFLOW_ENTRY), "init"], env=env, capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, run.stderr
        calls = log.read_text().splitlines()
        assert calls[0] == "db migrate"
        assert calls[1].startswith(f"pools set {pool} 1 "), calls
    unset = subprocess.run(["bash", str(AIRFLOW_ENTRY), "init"], env={"PATH": f"{bin_dir}:/usr/bin:/bin"},
                           capture_output=True, text=True, timeout=60)
    assert unset.returncode != 0 and "infra/airflow/airflow.env" in unset.stderr


def nessie_embedded_settings() -> dict[str, str | None]:
    """The -D settings NessieServer.icebergRestCatalog() gives the embedded server: key -> literal value or None."""
    text = NESSIE_JAVA.read_text()
    constants = dict(re.findall(r'static final String (\w+) = "([^"]*)"', text))
    body = text[text.index("List<String> icebergRestCatalog("):]
    body = body[: body.index("\n  }\n")]
    prefix = re.search(r'String s3 = "([^"]+)"', body).group(1)
    body = body.replace('s3 + "', f'"{prefix}')
    for name, value in constants.items():
        body = re.sub(rf'"\s*\+\s*{name}\s*\+\s*"', value, body)
        body = re.sub(rf'"\s*\+\s*{name}\b', f'{value}"', body)
    settings = {}
    for key, value in re.findall(r'"-D([\w.-]+)=([^"]*)"', body):
        settings[key] = value if value else None
    assert "nessie.catalog.default-warehouse" in settings and len(settings) >= 8, settings
    return settings


def test_nessie_has_the_embedded_servers_settings(stack):
    job = environment(services(stack)["airflow-scheduler"])
    from_jobs = {
        "nessie.catalog.warehouses.tidemark.location": job["TIDEMARK_WAREHOUSE"],
        "nessie.catalog.service.s3.default-options.endpoint": job["TIDEMARK_S3_ENDPOINT"],
        "nessie.catalog.service.s3.default-options.path-style-access": job["TIDEMARK_S3_PATH_STYLE"],
        "nessie.catalog.service.s3.default-options.region": job["TIDEMARK_S3_REGION"],
    }
    text = NESSIE_JAVA.read_text()
    secret = re.search(r'S3_SECRET_NAME = "([^"]+)"', text).group(1)
    for name in ("nessie", "nessie-auth"):
        env = environment(services(stack)[name])
        for key, value in nessie_embedded_settings().items():
            assert key in env, f"{name} lacks {key}, which the embedded server sets"
            expected = value if value is not None else from_jobs.get(key)
            assert expected is not None, f"no expectation for {key}: teach this test where its value comes from"
            assert env[key] == expected, f"{name}: {key}={env[key]!r}, the embedded server's way gives {expected!r}"
        assert env[f"{secret}.name"] == job["TIDEMARK_S3_ACCESS_KEY"]
        assert env[f"{secret}.secret"] == job["TIDEMARK_S3_SECRET_KEY"]
        assert env["nessie.version.store.type"] not in ("IN_MEMORY", "INMEMORY"), "the version store must persist"
        assert env["quarkus.datasource.postgresql.jdbc.url"].startswith("jdbc:postgresql://nessie-db:")
        health = " ".join(services(stack)[name]["healthcheck"]["test"])
        assert f"/dev/tcp/127.0.0.1/{env['quarkus.management.port']}" in health, "the healthcheck asks another port"


# ---------------------------------------------------------------------------------------------------------------
# the Dockerfiles and scripts


def lint_venv() -> Path:
    home = Path(os.environ.get("TIDEMARK_LINT_VENV", ROOT / ".venv" / "lint"))
    reqs = ROOT / "infra" / "tests" / "requirements-lint.txt"
    run = subprocess.run([str(ROOT / "infra" / "python-venv"), str(home), str(reqs)], capture_output=True, text=True,
                         timeout=900)
    assert run.returncode == 0, f"cannot install the linters of {reqs}:\n{run.stderr[-2000:]}"
    return Path(run.stdout.strip())


def test_dockerfiles_pass_hadolint():
    hadolint = lint_venv() / "bin" / "hadolint"
    dockerfiles = sorted(ROOT.glob("infra/**/Dockerfile"))
    assert DOCKERFILE in dockerfiles
    run = subprocess.run([str(hadolint), "--no-color", *map(str, dockerfiles)], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, f"hadolint:\n{run.stdout}{run.stderr}"


def test_scripts_parse():
    for script, shell in ((GEN_ENV, "bash"), (AIRFLOW_ENTRY, "bash"), (MINIO_SETUP, "sh")):
        run = subprocess.run([shell, "-n", str(script)], capture_output=True, text=True)
        assert run.returncode == 0, f"{script}: {run.stderr}"
        assert os.access(script, os.X_OK), f"{script} is not executable"
