"""Attack: break the grading machinery by signalling it: SIGKILL to its parent (the fork server),
SIGSTOP to it, and SIGKILL to the parent's whole process group (the judge's, on the local
runtime). The reference answer to exercise 10 is graded alongside.
Honest baseline: 0 for this file.
Expected: every signal out of the worker's own processes is refused (Landlock scopes signals),
or has nothing outside to reach (local runtime: the worker is PID 1 of a PID namespace of its own,
its parent cannot be named: getppid() is 0); each check fails saying so; exercise 10 gets full
marks. In the container the parent's group is
that of PID 1, the entry point, which ignores signals from inside the container: killpg is not
refused there, and kills nothing. Where signals cannot be scoped (see
test_fork_server_killed_or_stopped_without_landlock), the judge restarts or reports.
"""
import os
import signal


def add_feature_bias(x, bias):
    parent = os.getppid()
    os.kill(parent, signal.SIGKILL)
    raise RuntimeError(f"SIGKILL to the parent (pid {parent}): not refused")


def add_sample_bias(x, bias):
    parent = os.getppid()
    os.kill(parent, signal.SIGSTOP)
    raise RuntimeError(f"SIGSTOP to the parent (pid {parent}): not refused")


def pairwise_sq_dists(a, b):
    group = os.getpgid(os.getppid())
    os.killpg(group, signal.SIGKILL)
    raise RuntimeError(f"SIGKILL to process group {group}: not refused")
