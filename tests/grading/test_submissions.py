"""Opening submissions: folders, single files, archives (and hostile archives), file location."""
from __future__ import annotations

import io
import os
import tarfile
import zipfile
from pathlib import Path

import pytest

from grader.catalog import Catalog
from grader.errors import SubmissionError, UsageError
from grader.submissions import locate, opened

ROOT = Path(__file__).resolve().parents[2]
SOLUTION = ROOT / "solutions" / "tensors" / "05_broadcast_bias" / "broadcast_bias.py"


@pytest.fixture(scope="module")
def pilots():
    catalog = Catalog.load(ROOT)
    return [catalog.get("05"), catalog.get("10")]


def test_folder_by_layout_and_by_unique_name(pilots, tmp_path):
    (tmp_path / "deep" / "tensors" / "05_broadcast_bias").mkdir(parents=True)
    (tmp_path / "deep" / "tensors" / "05_broadcast_bias" / "broadcast_bias.py").write_text("x = 1\n")
    (tmp_path / "misc").mkdir()
    (tmp_path / "misc" / "autograd_basics.py").write_text("y = 2\n")
    found = locate(tmp_path, pilots, explicit=False)
    assert found["05_broadcast_bias"].path == tmp_path / "deep/tensors/05_broadcast_bias/broadcast_bias.py"
    assert found["10_autograd_basics"].path == tmp_path / "misc" / "autograd_basics.py"


def test_ambiguous_names_are_a_problem_not_a_guess(pilots, tmp_path):
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "broadcast_bias.py").write_text("")
    found = locate(tmp_path, pilots[:1], explicit=True)
    assert found["05_broadcast_bias"].path is None
    assert "several files could be broadcast_bias.py (a/broadcast_bias.py, b/broadcast_bias.py)" in \
        found["05_broadcast_bias"].problem


def test_single_file(pilots):
    found = locate(SOLUTION, pilots, explicit=True)
    assert found["05_broadcast_bias"].path == SOLUTION
    assert found["10_autograd_basics"].problem.startswith("the submission is the single file broadcast_bias.py")


def _zip(path: Path, members: dict[str, bytes], symlink: str | None = None) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        if symlink:
            info = zipfile.ZipInfo("link.py")
            info.external_attr = (0o120777 << 16)
            zf.writestr(info, symlink)
    return path


def test_zip_and_tar_gz_unpack(pilots, tmp_path):
    data = SOLUTION.read_bytes()
    z = _zip(tmp_path / "sub.zip", {"sub/tensors/05_broadcast_bias/broadcast_bias.py": data})
    with opened(z) as root:
        assert locate(root, pilots, explicit=False)["05_broadcast_bias"].path.read_bytes() == data
    t = tmp_path / "sub.tar.gz"
    with tarfile.open(t, "w:gz") as tf:
        tf.add(SOLUTION, arcname="broadcast_bias.py")
    with opened(t) as root:
        assert (root / "broadcast_bias.py").read_bytes() == data
    assert not root.exists()  # unpacked copies are removed afterwards


@pytest.mark.parametrize("member", ["../escape.py", "/abs/escape.py", "a/../../escape.py"])
def test_zip_path_traversal_is_refused(tmp_path, member):
    z = _zip(tmp_path / "evil.zip", {member: b"x"})
    with pytest.raises(SubmissionError, match="outside the submission"):
        with opened(z):
            pass
    assert not (tmp_path / "escape.py").exists()


def test_zip_symlink_is_refused(tmp_path):
    z = _zip(tmp_path / "link.zip", {"ok.py": b""}, symlink="/etc/passwd")
    with pytest.raises(SubmissionError, match="symbolic link"):
        with opened(z):
            pass


def test_tar_links_and_traversal_are_refused(tmp_path):
    t = tmp_path / "evil.tar.gz"
    with tarfile.open(t, "w:gz") as tf:
        info = tarfile.TarInfo("sneaky.py")
        info.type = tarfile.SYMTYPE
        info.linkname = "/etc/shadow"
        tf.addfile(info)
    with pytest.raises(SubmissionError, match="is a link"):
        with opened(t):
            pass
    t2 = tmp_path / "evil2.tar.gz"
    with tarfile.open(t2, "w:gz") as tf:
        info = tarfile.TarInfo("../../escape.py")
        info.size = 1
        tf.addfile(info, io.BytesIO(b"x"))
    with pytest.raises(SubmissionError, match="outside the submission"):
        with opened(t2):
            pass


def test_decompression_bomb_is_refused(tmp_path):
    z = _zip(tmp_path / "bomb.zip", {"bomb.py": b"0" * (300 * 1024 * 1024)})
    assert z.stat().st_size < 2 * 1024 * 1024
    with pytest.raises(SubmissionError, match="decompression bomb|more than"):
        with opened(z):
            pass


def test_corrupt_archives_are_clear_errors(tmp_path):
    bad = tmp_path / "broken.zip"
    bad.write_bytes(b"PK\x03\x04 this is not really a zip")
    with pytest.raises(SubmissionError, match="not a readable zip archive"):
        with opened(bad):
            pass
    bad_tar = tmp_path / "broken.tar.gz"
    bad_tar.write_bytes(b"\x1f\x8b\x08\x00garbage")
    with pytest.raises(SubmissionError, match="tar archive"):
        with opened(bad_tar):
            pass


def test_unsupported_and_missing_paths(tmp_path):
    other = tmp_path / "notes.txt"
    other.write_text("hi")
    with pytest.raises(UsageError, match=r"a submission is a folder, a .py file, a notebook \(.ipynb\), a .zip or a .tar.gz"):
        with opened(other):
            pass
    with pytest.raises(UsageError, match="submission not found"):
        with opened(tmp_path / "missing"):
            pass


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
def test_unreadable_file(tmp_path):
    f = tmp_path / "broadcast_bias.py"
    f.write_text("")
    f.chmod(0)
    with pytest.raises(UsageError, match="not readable"):
        with opened(f):
            pass
