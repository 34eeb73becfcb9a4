"""Attack: fill the disk: files of 128 MiB in the scratch folder, up to 1.25 GiB, then a 1 TiB
sparse file; pairwise_sq_dists makes 20 000 small files.
Honest baseline: 0.
Expected: stopped by the file-size limit, the scratch size (a 1 GiB tmpfs in the container) or
the time limit; every check fails saying so; the scratch folders are removed afterwards.
"""
import os

CHUNK = b"\0" * (16 << 20)


def add_feature_bias(x, bias):
    written = 0
    try:
        for i in range(10):
            with open(f"fill{i}.bin", "wb") as fh:
                for _ in range(8):
                    fh.write(CHUNK)
                    written += len(CHUNK)
    except OSError as exc:
        raise OSError(f"stopped after {written >> 20} MiB: {exc.strerror}") from None
    raise RuntimeError(f"wrote {written >> 20} MiB")


def add_sample_bias(x, bias):
    with open("sparse.bin", "wb") as fh:
        fh.truncate(1 << 40)
    raise RuntimeError("made a 1 TiB sparse file")


def pairwise_sq_dists(a, b):
    os.mkdir("many")
    for i in range(20000):
        with open(os.path.join("many", str(i)), "w") as fh:
            fh.write("x")
    raise RuntimeError("made 20000 files")
