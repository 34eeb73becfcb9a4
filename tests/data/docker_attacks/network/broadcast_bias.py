"""Tries to reach a listener on the host's loopback (the port is in the file name of a marker the
test writes next to the submission), and reports the network interfaces it can see."""
import os
import socket

HERE = os.path.dirname(os.path.abspath(__file__))


def add_feature_bias(x, bias):
    port = int(open(os.path.join(HERE, "port.txt")).read())
    with socket.create_connection(("127.0.0.1", port), timeout=3) as conn:
        conn.sendall(b"escaped")
    return x + bias


def add_sample_bias(x, bias):
    with open("/proc/net/dev") as fh:
        interfaces = sorted(line.split(":")[0].strip() for line in fh.readlines()[2:])
    raise RuntimeError(f"interfaces: {interfaces}")


def pairwise_sq_dists(a, b):
    socket.getaddrinfo("pypi.org", 443)
    return a
