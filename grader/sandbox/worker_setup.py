"""Setting up a forked child of the fork server (a worker, the verifier) before it serves: resource
limits, seeds, torch.compile's caches in its scratch, and the sandbox (namespaces, capabilities,
seccomp, Landlock) with the paths it may read and write."""

from __future__ import annotations

import os
import random
import resource
import sys

import numpy as np
import torch


def apply_limits(limits: dict) -> None:
    for name, value in limits.items():
        res = getattr(resource, name, None)
        if res is None or value is None:
            continue
        try:
            resource.setrlimit(res, (value, value))
        except (ValueError, OSError):
            pass


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False


def ensure_seeded(config: dict) -> None:
    """Seed the worker's generators with the check's seed, unless its fork server did so right
    before forking it (`config["preseeded"]`, see `grader.sandbox.zygote`): the generators' state
    is then inherited as it is right after seeding (numpy's and torch's), the same as seeding here, without the 2 ms
    a fresh child spends on it (torch.manual_seed formats a stack trace for CUDA's lazy seeding,
    reading source files the child's empty line cache does not hold)."""
    seed = config.get("seed", 0)
    if config.get("preseeded") != seed:
        seed_everything(seed)
    else:
        random.seed(seed)  # Python reseeds its own generator from the OS in every forked child


def compile_caches(scratch: str) -> dict[str, str]:
    """Environment for torch.compile's caches, in the worker's own scratch: the fork server's
    import of dynamo may have pointed them at a folder the worker cannot write (and a cache
    shared between workers would carry one candidate's compiled code into another's check)."""
    return {"TORCHINDUCTOR_CACHE_DIR": os.path.join(scratch, ".cache", "inductor"),
            "TRITON_CACHE_DIR": os.path.join(scratch, ".cache", "triton"),
            "XDG_CACHE_HOME": os.path.join(scratch, ".cache"),
            "CUDA_CACHE_PATH": os.path.join(scratch, ".cache", "nv")}


def cuda_paths(proc: str = "/proc", dev: str = "/dev") -> tuple[list[str], list[str]]:
    """What the CUDA driver reads and writes beyond the Python installation, where it exists:
    /proc/driver/nvidia and /proc/devices (read), the /dev/nvidia* device nodes (read and write)."""
    read = [p for p in (os.path.join(proc, "driver", "nvidia"), os.path.join(proc, "devices")) if os.path.exists(p)]
    write = []
    if os.path.isdir(dev):
        write = sorted(os.path.join(dev, n) for n in os.listdir(dev) if n.startswith("nvidia"))
    return read, write


def sandbox_paths(config: dict) -> tuple[list[str], list[str]]:
    """What the worker may read and write under Landlock: its submission, the Python installation
    and site-packages, the grader's package (not its checkout: exercises and solutions stay out),
    system libraries, CUDA's files (`cuda_paths`), and its scratch folder. /proc/self is writable
    (the CUDA driver writes there); /dev/shm only where it is private to the worker (its own
    namespaces or its container: `config["profile"]` other than "restricted")."""
    import grader

    candidate_dir = os.path.dirname(os.path.abspath(config["candidate"]))
    root = config.get("submission_root")
    # A submission that is a single file gets that file only: its folder may hold other
    # candidates' files (`grader grade -e 05 alice.py bob.py`).
    own = [root] if root and os.path.isfile(root) else [root or candidate_dir, candidate_dir]
    read = [*own, sys.prefix, sys.base_prefix,
            sys.exec_prefix, os.path.dirname(os.path.abspath(grader.__file__)),
            # /proc/self only: /proc/<pid>/environ of the judge or the CLI would show their
            # environment (Landlock does not stop that read), and /proc/<pid>/stat their ancestry.
            "/usr", "/lib", "/lib64", "/bin", "/proc/cpuinfo", "/proc/meminfo", "/sys",
            "/etc/ld.so.cache", "/etc/localtime",
            "/etc/nsswitch.conf", "/etc/passwd", "/etc/group", "/etc/hosts", "/etc/ssl"]
    read += [p for p in sys.path
             if os.path.isabs(p) and ("site-packages" in p or "dist-packages" in p or p.endswith(".zip"))]
    write = [config["scratch"], "/proc/self", "/dev/null", "/dev/zero", "/dev/urandom", "/dev/random", "/dev/tty"]
    if config.get("profile", "restricted") != "restricted":
        write.append("/dev/shm")
    cuda_read, cuda_write = cuda_paths()
    return read + cuda_read, write + cuda_write


def _checkout() -> list[str]:
    """The grader's checkout, when it runs from one (its package not installed in site-packages):
    the folder that holds its hidden checks and solutions, covered in the worker's mount namespace.
    Never a folder just below / (nor / itself)."""
    import grader

    package = os.path.dirname(os.path.realpath(grader.__file__))
    root = os.path.dirname(package)
    if os.path.basename(root) in ("site-packages", "dist-packages") or root.count(os.sep) < 2:
        return []
    return [root]


def enter_sandbox(config: dict) -> int | str:
    """Enter the worker's namespaces (profile "namespaces"), drop capabilities, install the seccomp
    filter (see `privileges`: sockets only where namespaces or the container hide the host), and
    apply Landlock when the judge asks for it. Returns the Landlock ABI applied (0: unavailable) or
    what failed (the judge reports it; the check still runs under the other protections)."""
    from grader.sandbox import landlock, namespaces, privileges

    failed = []
    profile = config.get("profile", "restricted")
    report_fd = config.get("report_fd")  # the fork server learns the worker's pid from it (see namespaces._split)
    try:
        if profile == "namespaces":
            read, write = sandbox_paths(config)
            try:
                namespaces.enter([p for p in read + write if not p.startswith(("/proc", "/sys", "/dev"))],
                                 int(config.get("shm_bytes", 1 << 30)), report_fd, hide=_checkout(),
                                 writable=[config["scratch"]],
                                 pid_namespace_made=bool(config.get("pid_namespace_made")))
                report_fd = None  # closed by enter
            except OSError as exc:
                failed.append(f"entering private namespaces failed: {exc}")
                profile = "restricted"  # the host is not hidden: no sockets
            os.chdir(config["scratch"])  # the bound-back scratch folder
    finally:
        # closed before any of the candidate's code runs: what the fork server reads there is ours
        # (nothing written: the worker is this process)
        if report_fd is not None:
            try:
                os.close(report_fd)
            except OSError:
                pass
    families = () if profile == "restricted" else \
        privileges.PRIVATE_NETWORK_FAMILIES if config.get("network", "loopback") == "loopback" else (privileges.AF_UNIX,)
    steps = [("dropping capabilities", privileges.drop_capabilities)]
    if privileges.seccomp_supported():
        steps.append(("the seccomp filter", lambda: privileges.install_filter(families)))
    for what, step in steps:
        try:
            step()
        except OSError as exc:
            failed.append(f"{what} failed: {exc}")
    applied: int | str = 0
    if config.get("landlock"):
        try:
            # TCP stays closed only where the worker shares the host's network
            applied = landlock.restrict(*sandbox_paths({**config, "profile": profile}), tcp=profile == "restricted")
        except OSError as exc:
            failed.append(f"Landlock failed: {exc}")
    return "; ".join(failed) if failed else applied
