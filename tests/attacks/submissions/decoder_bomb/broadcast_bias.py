"""Attack: make the judge's decoder do unbounded work after a message has fully arrived. Each
function writes a well-framed answer straight into the channel (found among its descriptors): a
set of 200 000 integers that all hash alike (each insertion compares with every earlier one:
minutes), a header of millions of empty JSON objects (gigabytes once parsed), and a header whose
numpy dtype string makes numpy's own parser raise. The reference answer to exercise 10 is graded
alongside.
Honest baseline: 0 for this file.
Expected: the decoder stops at the check's deadline ("time limit"), refuses the oversized header
before parsing it and turns the parser's exception into "malformed data"; the judge's memory stays
small; exercise 10 gets full marks.
"""
import json
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


def _answer(header: bytes, buffers=()) -> None:
    payload = struct.pack("<I", len(header)) + header
    for buf in buffers:
        payload += struct.pack("<Q", len(buf)) + buf
    fd = _channel()
    data = struct.pack("<Q", len(payload)) + payload
    while data:
        data = data[os.write(fd, data):]
    time.sleep(60)


def add_feature_bias(x, bias):
    modulus = (1 << 61) - 1  # every multiple hashes to 0
    same_hash = [{"i": str(k * modulus)} for k in range(1, 200_001)]
    _answer(json.dumps({"v": {"dict": [[{"s": "ok"}, {"set": same_hash}]]}, "n": 0}).encode())


def add_sample_bias(x, bias):
    _answer(b'{"v": {"dict": [[{"s": "ok"}, {"list": [' + b"{}," * 6_000_000 + b'null]}]]}, "n": 0}')


def pairwise_sq_dists(a, b):
    node = {"ndarray": 0, "dtype": "i4,(", "shape": [1]}
    _answer(json.dumps({"v": {"dict": [[{"s": "ok"}, node]]}, "n": 1}).encode(), [b"\0" * 4])
