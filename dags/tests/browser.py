"""Headless Chromium driven over the DevTools protocol (websocket-client): set a cookie, open a page, wait until its
rendered text shows what it must, save a screenshot. Logging in to Airflow = setting its `_token` cookie to a JWT
from POST /auth/token; authentication stays on."""

from __future__ import annotations

import base64
import itertools
import json
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import websocket


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Chromium:
    def __init__(self, shots: Path, width: int = 1600, height: int = 1000):
        self.shots = shots
        self.size = (width, height)
        self.ids = itertools.count(1)

    def __enter__(self) -> "Chromium":
        binary = shutil.which("chromium") or shutil.which("chromium-browser")
        assert binary, "chromium is not installed (Debian: apt-get install -y chromium; .ci/run does it)"
        self.profile = tempfile.mkdtemp(prefix="tidemark-chromium-")
        port = _free_port()
        self.proc = subprocess.Popen(
            [binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--no-first-run", "--no-default-browser-check", f"--remote-debugging-port={port}",
             "--remote-debugging-address=127.0.0.1", f"--user-data-dir={self.profile}",
             f"--window-size={self.size[0]},{self.size[1]}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5) as r:
                    pages = [t for t in json.load(r) if t["type"] == "page"]
                if pages:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline and self.proc.poll() is None, "chromium did not start"
            time.sleep(0.5)
        self.ws = websocket.create_connection(pages[0]["webSocketDebuggerUrl"], timeout=60, suppress_origin=True)
        self.send("Page.enable")
        self.send("Network.enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  width=self.size[0], height=self.size[1], deviceScaleFactor=1, mobile=False)
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.ws.close()
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            shutil.rmtree(self.profile, ignore_errors=True)

    def send(self, method: str, **params) -> dict:
        msg_id = next(self.ids)
        self.ws.send(json.dumps({"id": msg_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == msg_id:
                assert "error" not in msg, f"{method}: {msg['error']}"
                return msg.get("result", {})

    def cookie(self, url: str, name: str, value: str) -> None:
        assert self.send("Network.setCookie", name=name, value=value, url=url).get("success", True)

    def text(self) -> str:
        result = self.send("Runtime.evaluate", expression="document.body ? document.body.innerText : ''",
                           returnByValue=True)
        return result["result"].get("value", "")

    def wait_for(self, words: list[str], timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while True:
            text = self.text()
            if all(w in text for w in words):
                return text
            if time.monotonic() > deadline:
                missing = [w for w in words if w not in text]
                raise AssertionError(f"the page does not show {missing}; it shows: {text[:1500]!r}")
            time.sleep(1)

    def click(self, label: str, required: bool = True) -> bool:
        """Clicks the innermost visible element whose text is exactly `label`; whether there was one."""
        js = ("(() => { const els = [...document.querySelectorAll('button, a, [role=button], [role=combobox], div, span')]"
              f".filter(e => e.innerText && e.innerText.trim() === {json.dumps(label)} && e.offsetParent !== null);"
              " if (!els.length) return false; els[els.length - 1].click(); return true; })()")
        clicked = self.send("Runtime.evaluate", expression=js, returnByValue=True)["result"].get("value")
        assert clicked or not required, f"nothing to click labelled {label!r}"
        return bool(clicked)

    def shoot(self, url: str, name: str, must_show: list[str], timeout: float = 90,
              click_text: str | None = None, must_show_after: list[str] | None = None,
              dismiss: str | None = None) -> str:
        """Opens url, waits for the words, clicks `dismiss` if the page shows it (a notice over the page), optionally
        clicks and waits again, saves <shots>/<name>.png."""
        self.send("Page.navigate", url=url)
        text = self.wait_for(must_show, timeout)
        if dismiss and self.click(dismiss, required=False):
            time.sleep(1)
        if click_text:
            self.click(click_text)
            text = self.wait_for(must_show_after or [], timeout)
        time.sleep(1)  # let the last rendering settle before the picture
        png = base64.b64decode(self.send("Page.captureScreenshot", format="png")["data"])
        (self.shots / f"{name}.png").write_bytes(png)
        (self.shots / f"{name}.txt").write_text(text)
        return text
