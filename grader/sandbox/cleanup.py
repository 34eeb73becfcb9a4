"""Removing a folder a worker wrote, whatever it made there.

`shutil.rmtree` recurses once per level: a 3000-level chain of folders (which any worker can
make in its scratch) raises RecursionError, and paths that deep pass PATH_MAX. This walks with
an explicit stack of open folder descriptors, every name relative to its parent's descriptor,
and never raises: it answers what it could not remove. Past MAX_OPEN levels a folder is moved up
to the top (a rename, same file system) and emptied in a later pass, so no chain is too deep for
the open-file limit.
"""

from __future__ import annotations

import itertools
import os
import stat

_counter = itertools.count()

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
MAX_OPEN = 64  # folders held open at once; deeper ones are moved up to the top and done later


def _clear(fd: int) -> list[str]:
    """Empty the open folder `fd`, depth first without recursion."""
    problems: list[str] = []
    # (folder fd, its entries as they are read, its name, its parent's fd)
    stack: list[tuple[int, object, str | None, int]] = [(fd, iter(os.scandir(fd)), None, -1)]
    try:
        while stack:
            dir_fd, entries, name, parent_fd = stack[-1]
            entry = next(entries, None)  # type: ignore[call-overload]
            if entry is None:
                stack.pop()
                if name is not None:
                    os.close(dir_fd)
                    try:
                        os.rmdir(name, dir_fd=parent_fd)
                    except OSError as exc:
                        problems.append(f"{name}: {exc}")
                continue
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            try:
                if is_dir and len(stack) >= MAX_OPEN:
                    os.rename(entry.name, f".flattened-{os.getpid()}-{next(_counter)}", src_dir_fd=dir_fd, dst_dir_fd=fd)
                elif is_dir:
                    child = os.open(entry.name, _DIR_FLAGS, dir_fd=dir_fd)
                    try:
                        stack.append((child, iter(os.scandir(child)), entry.name, dir_fd))
                    except OSError:
                        os.close(child)
                        raise
                else:
                    os.unlink(entry.name, dir_fd=dir_fd)
            except FileNotFoundError:
                pass
            except OSError as exc:
                problems.append(f"{entry.name}: {exc}")
    finally:
        for open_fd, _, name, _ in stack:
            if name is not None:
                os.close(open_fd)
    return problems


def remove_tree(path: str | os.PathLike) -> str | None:
    """Remove `path` and everything in it; never raises. None when done, else what was left."""
    path = os.fspath(path)
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        return str(exc)
    try:
        if not stat.S_ISDIR(mode):
            os.unlink(path)
            return None
        fd = os.open(path, _DIR_FLAGS)
    except OSError as exc:
        return str(exc)
    problems: list[str] = []
    try:
        for _ in range(1000):  # each pass empties what it sees; flattened chains are done next pass
            problems = _clear(fd)
            if problems or not os.listdir(fd):
                break
    except Exception as exc:  # noqa: BLE001 - cleanup must never stop a report
        problems = [repr(exc)]
    finally:
        os.close(fd)
    try:
        os.rmdir(path)
    except OSError as exc:
        problems.append(str(exc))
    if problems:
        return f"could not remove all of {path}: {'; '.join(problems[:3])}"
    return None
