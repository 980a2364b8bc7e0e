"""The launcher every tidemark JVM starts through (jobs/src/main/launcher/tidemark, built next to the jar).

Run as the build wrote it, in a jar directory of its own with a stand-in for `java` (TIDEMARK_JAVA) that records its
arguments and, as the JVM does at exit, writes the class archive it is asked for: the JVM's options, the archive
mapped when it is newer than the jar, written by a Spark command only when that command succeeded, and renamed into
place so that no partial archive is ever mapped. One run with the real java closes it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "jobs" / "src" / "main" / "launcher" / "tidemark"
BUILT = ROOT / "jobs" / "target" / "tidemark"
# a stand-in for java: its arguments a line each; the archive -XX:ArchiveClassesAtExit names written at exit
FAKE_JAVA = """#!/bin/sh
printf '%s\\n' "$@" > "$(dirname "$0")/argv"
for a in "$@"; do
  case "$a" in -XX:ArchiveClassesAtExit=*) echo classes > "${a#-XX:ArchiveClassesAtExit=}" ;; esac
done
exit "${FAKE_JAVA_EXIT:-0}"
"""


@pytest.fixture
def jar_dir(tmp_path) -> Path:
    if not BUILT.is_file():
        pytest.fail(f"no {BUILT}: the launcher is built by `mvn package`", pytrace=False)
    assert BUILT.read_text() == SOURCE.read_text(), "jobs/target/tidemark is not the launcher of the sources"
    assert os.access(BUILT, os.X_OK), "the build left the launcher not executable"
    d = tmp_path / "jars"
    d.mkdir()
    shutil.copy2(BUILT, d / "tidemark")
    (d / "tidemark.jar").write_text("a jar")
    java = tmp_path / "bin" / "java"
    java.parent.mkdir()
    java.write_text(FAKE_JAVA)
    java.chmod(0o755)
    return d


def launch(jar_dir: Path, *args: str, **env: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    argv = jar_dir.parent / "bin" / "argv"
    argv.unlink(missing_ok=True)
    base = {k: v for k, v in os.environ.items() if not k.startswith("TIDEMARK_")}
    base["TIDEMARK_JAVA"] = str(jar_dir.parent / "bin" / "java")
    run = subprocess.run([str(jar_dir / "tidemark"), *args], env={**base, **env}, capture_output=True, text=True,
                         timeout=60)
    return run, argv.read_text().splitlines() if argv.exists() else []


def test_the_jvm_options_by_default_given_and_none(jar_dir):
    run, argv = launch(jar_dir, "land", "--arrival", "2")
    assert run.returncode == 0, run.stderr
    jar = str(jar_dir / "tidemark.jar")
    # by default the JIT's first tier, with the code cache both tiers would have
    assert argv == ["-XX:TieredStopAtLevel=1", "-XX:ReservedCodeCacheSize=240m", "-jar", jar, "land", "--arrival", "2"]
    _, argv = launch(jar_dir, "land", TIDEMARK_JAVA_OPTS="")
    assert argv == ["-jar", jar, "land"]
    _, argv = launch(jar_dir, "land", TIDEMARK_JAVA_OPTS=" -Xmx1g  -Dx=* ")
    assert argv == ["-Xmx1g", "-Dx=*", "-jar", jar, "land"]
    # -J<option>: after the options, before the jar; not an argument of tidemark
    _, argv = launch(jar_dir, "-J-Dtidemark.services.dir=/x", "-J-Xss4m", "services", "up", "-Jnot-this-one")
    assert argv == ["-XX:TieredStopAtLevel=1", "-XX:ReservedCodeCacheSize=240m", "-Dtidemark.services.dir=/x",
                    "-Xss4m", "-jar", jar, "services", "up", "-Jnot-this-one"]


def test_java_options_prints_what_the_jvms_get(jar_dir):
    run, argv = launch(jar_dir, "--java-options")
    assert run.returncode == 0 and argv == [], "--java-options started a JVM"
    assert run.stdout.splitlines() == ["-XX:TieredStopAtLevel=1", "-XX:ReservedCodeCacheSize=240m"]
    assert launch(jar_dir, "--java-options", TIDEMARK_JAVA_OPTS="")[0].stdout == ""
    assert launch(jar_dir, "--java-options", TIDEMARK_JAVA_OPTS="-Xmx2g")[0].stdout == "-Xmx2g\n"


def test_the_first_successful_spark_command_writes_the_archive_and_later_runs_map_it(jar_dir):
    archive = jar_dir / "tidemark.jsa"
    # not a Spark command: nothing to archive
    _, argv = launch(jar_dir, "land")
    assert not any("Archive" in a or "Shared" in a for a in argv) and not archive.exists()
    # a failed Spark command loaded only part of the classes: its archive is dropped, its exit code kept
    run, argv = launch(jar_dir, "bootstrap", FAKE_JAVA_EXIT="3")
    assert run.returncode == 3
    assert any(a.startswith(f"-XX:ArchiveClassesAtExit={archive}.") for a in argv), argv
    assert sorted(p.name for p in jar_dir.iterdir()) == ["tidemark", "tidemark.jar"], "a partial archive was left"
    # mapping only: never written
    _, argv = launch(jar_dir, "bootstrap", TIDEMARK_CLASS_ARCHIVE="map")
    assert not any("Archive" in a for a in argv) and not archive.exists()
    # the first that succeeds writes it to a file of its own, renamed into place
    run, argv = launch(jar_dir, "stream", "all")
    assert run.returncode == 0, run.stderr
    assert "-Xlog:cds*=off" in argv and archive.read_text() == "classes\n"
    assert sorted(p.name for p in jar_dir.iterdir()) == ["tidemark", "tidemark.jar", "tidemark.jsa"]
    # then every command maps it, Spark's or not
    for command in ("land", "sql", "services"):
        _, argv = launch(jar_dir, command)
        assert argv[:4] == ["-XX:TieredStopAtLevel=1", "-XX:ReservedCodeCacheSize=240m",
                            f"-XX:SharedArchiveFile={archive}", "-Xlog:cds*=off"], argv
    # a rebuilt jar makes it stale: not mapped, written again
    time.sleep(0.05)
    (jar_dir / "tidemark.jar").write_text("another jar")
    os.utime(archive, (time.time() - 60, time.time() - 60))
    _, argv = launch(jar_dir, "sql", "SELECT 1")
    assert not any(a.startswith("-XX:SharedArchiveFile") for a in argv)
    assert any(a.startswith("-XX:ArchiveClassesAtExit") for a in argv)
    assert archive.stat().st_mtime > (jar_dir / "tidemark.jar").stat().st_mtime


def test_a_link_to_the_launcher_finds_the_jar(jar_dir, tmp_path):
    link = tmp_path / "bin" / "tidemark"
    link.symlink_to(jar_dir / "tidemark")
    base = {k: v for k, v in os.environ.items() if not k.startswith("TIDEMARK_")}
    run = subprocess.run([str(link), "land"], env=dict(base, TIDEMARK_JAVA=str(tmp_path / "bin" / "java")),
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert str(jar_dir / "tidemark.jar") in (tmp_path / "bin" / "argv").read_text().splitlines()


def test_the_built_launcher_runs_the_built_jar():
    env = {k: v for k, v in os.environ.items() if not k.startswith("TIDEMARK_")}
    run = subprocess.run([str(BUILT), "--version"], env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("tidemark "), run.stdout


def test_the_built_launcher_asks_a_driver_with_the_built_client_jar_alone(tmp_path):
    """The launcher of jobs/target with the real java and tidemark-client.jar, its caller of the resident driver,
    against a socket that speaks the driver's protocol (jobs/src/main/java/io/tidemark/driver/Wire.java): the jar
    holds every class of the conversation (the key's proof, the request, the output, the exit code), and none of
    tidemark.jar's classpath is needed."""
    import hashlib
    import hmac
    import socket
    import struct
    import threading

    client_jar = BUILT.parent / "tidemark-client.jar"
    assert client_jar.is_file(), "no jobs/target/tidemark-client.jar: it is built by `mvn package`"
    home = tmp_path / "home"
    (home / "run").mkdir(parents=True)
    key = os.urandom(32)
    (home / "run" / "driver.key").write_text(key.hex() + "\n")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(home / "run" / "driver.sock"))
    server.listen(1)
    server.settimeout(60)
    heard: dict[str, object] = {}

    def frame(conn: socket.socket) -> tuple[bytes, bytes]:
        head = conn.recv(5, socket.MSG_WAITALL)
        kind, length = struct.unpack(">cI", head)
        return kind, conn.recv(length, socket.MSG_WAITALL) if length else b""

    def send(conn: socket.socket, kind: bytes, payload: bytes) -> None:
        conn.sendall(struct.pack(">cI", kind, len(payload)) + payload)

    def driver() -> None:
        conn, _ = server.accept()
        with conn:
            nonce = os.urandom(32)
            version = b"tidemark-driver/1"
            send(conn, b"H", nonce + version)
            kind, proof = frame(conn)
            heard["proved"] = kind == b"A" and hmac.compare_digest(
                proof, hmac.new(key, version + nonce, hashlib.sha256).digest())
            send(conn, b"W", b"")
            heard["request"] = frame(conn)
            send(conn, b"O", "ran in the driver\n".encode())
            send(conn, b"X", struct.pack(">i", 3))

    t = threading.Thread(target=driver, daemon=True)
    t.start()
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith("TIDEMARK_")}
        run = subprocess.run([str(BUILT), "--driver-only", "sql", "SELECT 1"], env=dict(env, TIDEMARK_HOME=str(home)),
                             capture_output=True, text=True, timeout=60)
    finally:
        t.join(30)
        server.close()
    assert heard.get("proved") is True, heard
    kind, request = heard["request"]
    assert kind == b"Q" and b"SELECT 1" in request, heard
    assert (run.returncode, run.stdout) == (3, "ran in the driver\n"), run.stderr


# a stand-in for java that appends each run's arguments to `calls`; as the driver's client it exits FAKE_CLIENT_EXIT
DRIVER_JAVA = """#!/bin/sh
{ printf '%s\\n' "$@"; echo ---; } >> "$(dirname "$0")/calls"
case " $* " in *" io.tidemark.driver.DriverClient "*) exit "${FAKE_CLIENT_EXIT:-0}" ;; esac
exit 0
"""


def test_the_spark_commands_go_to_the_resident_driver_when_there_is_one_to_ask(jar_dir, tmp_path):
    import socket

    (jar_dir.parent / "bin" / "java").write_text(DRIVER_JAVA)
    home = tmp_path / "home"
    (home / "run").mkdir(parents=True)
    jar = str(jar_dir / "tidemark.jar")

    def runs(*args: str, cwd: Path | None = None, **env: str) -> tuple[int, list[list[str]]]:
        calls = jar_dir.parent / "bin" / "calls"
        calls.unlink(missing_ok=True)
        base = {k: v for k, v in os.environ.items() if not k.startswith("TIDEMARK_")}
        base["TIDEMARK_JAVA"] = str(jar_dir.parent / "bin" / "java")
        run = subprocess.run([str(jar_dir / "tidemark"), *args], env={**base, **env}, capture_output=True, text=True,
                             timeout=60, cwd=cwd)
        text = calls.read_text() if calls.exists() else ""
        return run.returncode, [c.strip("\n").split("\n") for c in text.split("---\n") if c.strip()]

    client = ["-cp", str(jar_dir / "tidemark-client.jar"), "io.tidemark.driver.DriverClient"]
    # no driver started for the home (no socket): a JVM of its own, as ever
    code, calls = runs("stream", "all", TIDEMARK_HOME=str(home))
    assert code == 0 and len(calls) == 1 and calls[0][-4:] == ["-jar", jar, "stream", "all"]
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(home / "run" / "driver.sock"))
        # a driver to ask: the client hands it the command; what it exits with is the command's
        code, calls = runs("--home", str(home), "stream", "all")
        assert code == 0 and len(calls) == 1 and calls[0][-7:] == [*client, "--home", str(home), "stream", "all"]
        code, calls = runs("publish", TIDEMARK_HOME=str(home), FAKE_CLIENT_EXIT="3")
        assert code == 3 and len(calls) == 1
        # the home relative to the working directory, as the jar takes it
        code, calls = runs("sql", "SELECT 1", cwd=tmp_path, TIDEMARK_HOME="home")
        assert len(calls) == 1 and calls[0][-5:] == [*client, "sql", "SELECT 1"]
        # not served (75: nothing ran): the command in a JVM of its own after it
        code, calls = runs("stream", "all", TIDEMARK_HOME=str(home), FAKE_CLIENT_EXIT="75")
        assert code == 0 and len(calls) == 2 and calls[0][-5:] == [*client, "stream", "all"]
        assert calls[1][-4:] == ["-jar", jar, "stream", "all"]
        # never for a command it does not run, JVM options, TIDEMARK_DRIVER=off, a crash point
        for args, env in ((["services", "up"], {}), (["-J-Xmx1g", "stream", "all"], {}),
                          (["stream", "all"], {"TIDEMARK_DRIVER": "off"}),
                          (["stream", "all"], {"TIDEMARK_TEST_CRASH": "raw:before-commit:0"})):
            code, calls = runs(*args, TIDEMARK_HOME=str(home), **env)
            assert len(calls) == 1 and "-jar" in calls[0] and "io.tidemark.driver.DriverClient" not in calls[0], args
        # --driver-only (the DAGs' Spark tasks): the client alone, its exit code as it is, 75 included
        code, calls = runs("--driver-only", "publish", TIDEMARK_HOME=str(home), FAKE_CLIENT_EXIT="75")
        assert code == 75 and len(calls) == 1 and calls[0][-4:] == [*client, "publish"][-4:]
    # a driver on the network needs no socket
    code, calls = runs("land", TIDEMARK_HOME=str(tmp_path / "elsewhere"), TIDEMARK_DRIVER_ADDRESS="driver:7078")
    assert len(calls) == 1 and calls[0][-1] == "land" and "io.tidemark.driver.DriverClient" in calls[0]
