"""Waits 1 ms after each of 200 parallel regions and reports the CPU time that took (tests of the
OpenMP wait policy: tests/test_speed.py, tests/test_docker.py)."""
import resource, time, torch

def add_feature_bias(x, b):
    torch.set_num_threads(2)
    big = torch.ones(1 << 20)
    def cpu():
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime
    c0, t0 = cpu(), time.perf_counter()
    for _ in range(200):  # a parallel region, then the threads wait
        big.sum()
        time.sleep(0.001)
    raise RuntimeError(f"spin: cpu {cpu() - c0:.4f} wall {time.perf_counter() - t0:.4f}")

sample_bias = pairwise_squared_distance = add_feature_bias
