"""How a tidemark JVM starts, for the DAGs and for infra/spark/submit: through the launcher next to the jars (the
`tidemark` script the build writes into jobs/target, the image into /opt/tidemark/jars), or as a spark-submit of
tidemark-spark.jar, whose main class and s3a jars the build writes next to the jars too (spark-submit.conf).

Standard library only, and nothing but paths at import: infra/spark/submit runs this file as a script
(`python3 launch.py JAR_DIR` prints the spark-submit arguments, one a line), and the DAG files import it when parsed.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

# where the jars are: jobs/target of the checkout next to dags/, unless the environment says otherwise (images)
JAR_DIR = Path(os.environ.get("TIDEMARK_JAR_DIR") or Path(__file__).resolve().parents[2] / "jobs" / "target")


def launcher(jar_dir: Path = JAR_DIR) -> Path:
    return jar_dir / "tidemark"


# what the launcher's `--driver-only` exits with when no resident driver ran the command (it ran nothing)
NOT_SERVED = 75


def driver_command(*args: str, jar_dir: Path = JAR_DIR) -> list[str]:
    """`tidemark ARGS` in the resident driver (`tidemark driver start`, compose's `driver` service), as an argument
    list: the launcher hands the command to it and exits with the command's code, or exits NOT_SERVED having run
    nothing when no driver serves it (none started, or one that does not answer: it says so in one line)."""
    return [str(launcher(jar_dir)), "--driver-only", *args]


def command(*args: str, jar_dir: Path = JAR_DIR) -> str:
    """The shell command of `tidemark ARGS`; ARGS are shell words as they are (quoted by the caller, or templates)."""
    return " ".join([shlex.quote(str(launcher(jar_dir))), *args])


def java_options(jar_dir: Path = JAR_DIR, map_archive: Path | None = None,
                 write_archive: Path | None = None) -> list[str]:
    """The JVM options the launcher gives a tidemark JVM (TIDEMARK_JAVA_OPTS, or its defaults), for the JVMs that
    spark-submit starts instead; then, as the launcher writes them, those that map the class archive map_archive or
    write one to write_archive at exit."""
    archive = (["--map-archive", str(map_archive)] if map_archive
               else ["--write-archive", str(write_archive)] if write_archive else [])
    run = subprocess.run([str(launcher(jar_dir)), "--java-options", *archive], capture_output=True, text=True,
                         timeout=60)
    if run.returncode != 0:
        raise RuntimeError(f"{launcher(jar_dir)} --java-options exited {run.returncode}: {run.stderr.strip()}")
    return run.stdout.splitlines()


@dataclass(frozen=True)
class SparkSubmit:
    """spark-submit's arguments for tidemark-spark.jar, but the master, the deploy mode and tidemark's own."""

    application: str
    java_class: str
    jars: str  # comma-separated, as --jars takes them
    conf: dict[str, str]

    def args(self) -> list[str]:
        conf = [a for k, v in self.conf.items() for a in ("--conf", f"{k}={v}")]
        return ["--class", self.java_class, "--jars", self.jars, *conf, self.application]


def spark_submit_line(jar_dir: Path = JAR_DIR) -> SparkSubmit:
    """The spark-submit of the jars in jar_dir, from the spark-submit.conf the build wrote there."""
    path = jar_dir / "spark-submit.conf"
    try:
        lines = path.read_text().splitlines()
    except FileNotFoundError:
        raise FileNotFoundError(f"no {path}: build the jars (mvn package) or set TIDEMARK_JAR_DIR") from None
    built = dict(line.split("=", 1) for line in lines if line.strip() and not line.startswith("#"))
    return SparkSubmit(
        application=str(jar_dir / built["application"]),
        java_class=built["class"],
        jars=",".join(str(jar_dir / j) for j in built["jars"].split(",")),
        # a job's Spark UI would only collide on ports between concurrent submits; a cluster's master UI still
        # shows the application
        conf={"spark.ui.enabled": "false"},
    )


def main(argv: list[str]) -> int:
    """infra/spark/submit's arguments for the jars in argv[1], one a line; exit 2 naming what is missing."""
    jar_dir = Path(argv[1])
    try:
        line = spark_submit_line(jar_dir)
    except FileNotFoundError as e:
        print(f"infra/spark/submit: {e}", file=sys.stderr)
        return 2
    for jar in [line.application, *line.jars.split(",")]:
        if not Path(jar).is_file():
            print(f"infra/spark/submit: no {jar}; run mvn package (or set TIDEMARK_JAR_DIR)", file=sys.stderr)
            return 2
    print("\n".join(line.args()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
