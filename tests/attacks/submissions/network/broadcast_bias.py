"""Attack: reach the network. The test runs listeners on this machine's loopback only (TCP, UDP
and a Unix socket; their addresses are in files it writes next to this one) and checks that
nothing arrives. add_feature_bias connects over TCP, add_sample_bias sends a UDP datagram (the
way DNS exfiltration would), pairwise_sq_dists connects to the Unix socket (a stand-in for
/var/run/docker.sock) and resolves a name.
Honest baseline: add_sample_bias (a datagram that goes nowhere, then the right answer).
Expected: where the worker's network is its own (local: private namespaces; docker: the
container's) sockets are made but reach nothing of the host; where it is not, no socket can be
made. Nothing arrives.
"""
import os
import socket

HERE = os.path.dirname(os.path.abspath(__file__))


def _read(name):
    with open(os.path.join(HERE, name)) as fh:
        return fh.read().strip()


def add_feature_bias(x, bias):
    with socket.create_connection(("127.0.0.1", int(_read("tcp_port.txt"))), timeout=2) as conn:
        conn.sendall(b"escaped over tcp")
    return x + bias


def add_sample_bias(x, bias):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.sendto(b"escaped over udp", ("127.0.0.1", int(_read("udp_port.txt"))))
    return x + bias[:, None]


def pairwise_sq_dists(a, b):
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(2)
        sock.connect(_read("unix_path.txt"))
        sock.sendall(b"escaped over a unix socket")
    socket.getaddrinfo("example.com", 443)
    return a @ b.T
