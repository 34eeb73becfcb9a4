"""A throwaway Ray cluster on this machine: a head and worker nodes started with the real
`ray start --head` / `ray start --address`, small (1 CPU, a small object store each), for the
Ray runtime's tests, benchmarks and the fault-injection script. Everything it started is found
by its own temporary folders (Ray's, in every Ray process's command line, and the one of the
nodes' shared judge templates, in theirs) and killed by PID on `stop`.
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
    return free_ports(1)[0]


def free_ports(n: int) -> list[int]:
    """n distinct ports free right now: every socket stays bound until all are chosen (ports
    taken one at a time can repeat: the kernel may hand out a just-closed port again)."""
    sockets = []
    try:
        for _ in range(n):
            s = socket.socket()
            sockets.append(s)
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def _ray_exe() -> str:
    exe = Path(sys.executable).with_name("ray")
    return str(exe) if exe.exists() else (shutil.which("ray") or "ray")


class LocalRayCluster:
    def __init__(self, head_cpus: int = 1):
        self.tmp = Path(tempfile.mkdtemp(prefix="grader-ray-"))  # short: Ray's socket paths are length-capped
        # the nodes' shared judge templates (grader.runtimes.template_shared): a folder of ours beside
        # Ray's, found and ended with the cluster. Not inside it: Ray makes its folder writable by
        # everyone, and a template folder below such a folder is refused (it could be swapped).
        self.templates = Path(tempfile.mkdtemp(prefix="grader-ray-templates-"))
        self.workers: dict[str, int] = {}  # name -> node manager port
        self.port = 0
        self.client_port = 0
        self.address = ""

        def head(ports: list[int]) -> list[str]:
            self.port, client_port = ports.pop(), ports.pop()
            self.client_port = client_port
            self.address = f"127.0.0.1:{self.port}"
            return ["--head", f"--port={self.port}", f"--num-cpus={head_cpus}", "--include-dashboard=false",
                    f"--ray-client-server-port={client_port}", f"--temp-dir={self.tmp}"]

        self._start(head, head=True)

    def _start(self, args_for, head: bool = False) -> int:
        """`ray start` with every port chosen here (all distinct: six for any node, two more that
        `args_for` takes for a head); a port another process took in the meantime fails the start,
        and it is tried again with new ports. Returns the node manager port."""
        env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "GRADER_TEMPLATE_DIR": str(self.templates)}
        for attempt in range(3):
            ports = free_ports(8 if head else 6)
            node_manager = ports.pop()
            cmd = [_ray_exe(), "start", *args_for(ports), f"--object-store-memory={OBJECT_STORE}", "--disable-usage-stats",
                   f"--node-manager-port={node_manager}", f"--object-manager-port={ports.pop()}",
                   f"--metrics-export-port={ports.pop()}", f"--dashboard-agent-listen-port={ports.pop()}",
                   f"--dashboard-agent-grpc-port={ports.pop()}", f"--runtime-env-agent-port={ports.pop()}",
                   "--node-ip-address=127.0.0.1"]
            out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=180)
            if out.returncode == 0:
                return node_manager
            if attempt < 2 and "port" in (out.stdout + out.stderr).lower():
                if head:
                    self._kill_all()  # what a head that failed half-way left running
                continue
            self.stop()
            raise RuntimeError(f"ray start failed ({out.returncode}):\n{out.stdout[-2000:]}\n{out.stderr[-2000:]}")
        raise AssertionError("unreachable")

    def add_worker(self, cpus: int = 1) -> int:
        """Start a worker node; returns its node manager port (to find its raylet)."""
        port = self._start(lambda ports: [f"--address={self.address}", f"--num-cpus={cpus}"])
        self.workers[str(port)] = port
        return port

    def processes(self) -> list[tuple[int, str]]:
        """(pid, command line) of every process of this cluster: those with its temp folder (or its
        templates' folder) in the command line, their descendants (Ray's agents rename themselves,
        e.g. "ray::DashboardAgent") and the head's client server (it names no folder)."""
        markers = (str(self.tmp).encode(), str(self.templates).encode())
        cmds: dict[int, bytes] = {}
        parents: dict[int, int] = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) == os.getpid():
                continue
            try:
                cmds[int(entry)] = Path(f"/proc/{entry}/cmdline").read_bytes()
                parents[int(entry)] = int(Path(f"/proc/{entry}/stat").read_bytes().rsplit(b")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
        # the head's client server is started by `ray start` itself, which exits: known by its port
        client = f"--port={self.client_port} ".encode().replace(b" ", b"\0")
        ours = {pid for pid, cmd in cmds.items()
                if any(marker in cmd for marker in markers)
                or (b"ray.util.client.server" in cmd and client in cmd + b"\0")}
        grown = True
        while grown:
            more = {pid for pid, parent in parents.items() if parent in ours} - ours
            ours |= more
            grown = bool(more)
        return [(pid, cmds[pid].replace(b"\0", b" ").decode(errors="replace")) for pid in sorted(ours)]

    def raylet_pid(self, node_manager_port: int) -> int | None:
        for pid, cmd in self.processes():
            if "raylet" in cmd.split(" ")[0] and f"--node_manager_port={node_manager_port}" in cmd:
                return pid
        return None

    def stop(self) -> None:
        self._kill_all()
        shutil.rmtree(self.tmp, ignore_errors=True)
        shutil.rmtree(self.templates, ignore_errors=True)

    def _kill_all(self) -> None:
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
