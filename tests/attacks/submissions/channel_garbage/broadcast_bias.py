"""Attack: write straight into the channel to the judge (found among its open file descriptors):
a frame announcing a 2 GiB answer and then nothing, a frame of garbage, a frame announcing
2**62 bytes. The reference answer to exercise 10 is graded alongside.
Honest baseline: 0 for this file.
Expected: the judge allocates only what arrives, refuses what it cannot decode or what exceeds
its cap, kills the worker and says so; exercise 10 gets full marks.
"""
import os
import socket
import stat
import struct
import time


def _channel():
    for fd in range(3, 256):
        try:
            if stat.S_ISSOCK(os.fstat(fd).st_mode):
                with socket.socket(fileno=os.dup(fd)) as sock:
                    if sock.type == socket.SOCK_STREAM:
                        return fd
        except OSError:
            continue
    raise LookupError("no channel found")


def add_feature_bias(x, bias):
    os.write(_channel(), struct.pack("<Q", (1 << 31) - 1))
    time.sleep(60)


def add_sample_bias(x, bias):
    os.write(_channel(), struct.pack("<Q", 40) + b"\xff" * 40)
    time.sleep(60)


def pairwise_sq_dists(a, b):
    os.write(_channel(), struct.pack("<Q", 1 << 62))
    time.sleep(60)
