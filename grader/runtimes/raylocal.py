"""A throwaway Ray cluster on this machine: a head and worker nodes started with the real
`ray start --head` / `ray start --address`, small (1 CPU, a small object store each), for the
Ray runtime's tests, benchmarks and the fault-injection script. Everything it started is found
by its own temporary folder (in every Ray process's command line) and killed by PID on `stop`.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

OBJECT_STORE = 80 * 1000 * 1000  # bytes per node (Ray's floor is 75 MB)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ray_exe() -> str:
    exe = Path(sys.executable).with_name("ray")
    return str(exe) if exe.exists() else (shutil.which("ray") or "ray")


class LocalRayCluster:
    def __init__(self, head_cpus: int = 1):
        self.tmp = Path(tempfile.mkdtemp(prefix="grader-ray-"))  # short: Ray's socket paths are length-capped
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.workers: dict[str, int] = {}  # name -> node manager port
        self._run(["--head", f"--port={self.port}", f"--num-cpus={head_cpus}", "--include-dashboard=false", f"--ray-client-server-port={free_port()}",
                   f"--temp-dir={self.tmp}"])

    def _run(self, args: list[str], node_manager_port: int | None = None) -> None:
        env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
        cmd = [_ray_exe(), "start", *args, f"--object-store-memory={OBJECT_STORE}", "--disable-usage-stats",
               f"--node-manager-port={node_manager_port or free_port()}", f"--object-manager-port={free_port()}",
               f"--metrics-export-port={free_port()}", f"--dashboard-agent-listen-port={free_port()}",
               f"--dashboard-agent-grpc-port={free_port()}", f"--runtime-env-agent-port={free_port()}",
               "--node-ip-address=127.0.0.1"]
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=180)
        if out.returncode != 0:
            self.stop()
            raise RuntimeError(f"ray start failed ({out.returncode}):\n{out.stdout[-2000:]}\n{out.stderr[-2000:]}")

    def add_worker(self, cpus: int = 1) -> int:
        """Start a worker node; returns its node manager port (to find its raylet)."""
        port = free_port()
        self._run([f"--address={self.address}", f"--num-cpus={cpus}"], node_manager_port=port)
        self.workers[str(port)] = port
        return port

    def processes(self) -> list[tuple[int, str]]:
        """(pid, command line) of every process of this cluster (its temp folder in the command line)."""
        found = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                cmd = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if str(self.tmp) in cmd and int(entry) != os.getpid():
                found.append((int(entry), cmd))
        return found

    def raylet_pid(self, node_manager_port: int) -> int | None:
        for pid, cmd in self.processes():
            if "raylet" in cmd.split(" ")[0] and f"--node_manager_port={node_manager_port}" in cmd:
                return pid
        return None

    def stop(self) -> None:
        for _ in range(3):
            procs = self.processes()
            if not procs:
                break
            for pid, _cmd in procs:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.5)
        shutil.rmtree(self.tmp, ignore_errors=True)
