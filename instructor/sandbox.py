"""The sandbox a grading kernel runs in: bubblewrap (bwrap), one per notebook.

What the kernel sees, and all it sees:

- the system's programs and libraries (/usr, /etc) and the Python environment the grader runs
  in, read-only; of this repository only its `.venv` (not the package's source, not
  `instructor/`), and that only when the environment lives there;
- a private copy of the student edition made for this notebook alone, read-only;
- one writable scratch folder (its working folder, empty, in memory, WORK_BYTES at most), and
  its home folder: the kernel's connection file and ipc sockets (the sandbox has no network at
  all, not even a loopback shared with the grader), its IPython profile and the grading step's
  files. Home is the one writable folder the grader sees; the grader watches its size
  (grade.py, HOME_BYTES);
- its own /proc, /dev and /tmp (empty, in memory, TMP_BYTES at most), its own process
  namespace (every process the notebook starts ends with the kernel), no network.

When the grader runs as root, the kernel runs as a user of its own (one per grader and job
slot, from SANDBOX_UID up: far above the users a system makes), which owns nothing outside its
folders; otherwise as the grader's user mapped in a
user namespace of its own (which cannot make more). Limits, set before the kernel starts and kept
by everything it starts: MEMORY bytes of address space per process, NPROC processes and threads,
files of FILE_SIZE bytes at most, no core files.

`problem()` says in one line why bwrap cannot run here (not installed, no user namespaces), or None.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

BWRAP = "bwrap"
MEMORY = 4 * 2**30  # bytes of address space per process (a chapter's kernel with numpy: about 1.5 GiB)
NPROC = 128  # processes and threads of the sandbox's user (a kernel runs about 10 threads)
FILE_SIZE = 256 * 2**20  # bytes, the largest file a notebook may write
WORK_BYTES = 256 * 2**20  # bytes, all the working folder may hold (memory: a tmpfs)
TMP_BYTES = 64 * 2**20  # bytes, all /tmp may hold (memory: a tmpfs)
SANDBOX_UID = 1_000_000_000  # the first sandbox user and group when the grader runs as root
SLOTS = 256  # job slots per grader: users SANDBOX_UID + grader * SLOTS + slot


def python_folders():
    """The folders the kernel's Python needs: the environment and the interpreter it was made from."""
    folders = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).resolve().parent.parent}
    folders |= {f.resolve() for f in folders}
    return sorted(f for f in folders if not f.is_relative_to("/usr"))


# Runs first in the sandbox: drop to the sandbox's user (when bwrap ran as root), set the limits,
# then become the command (exec keeps the process, so the limits hold for all it starts).
INSIDE = """\
import json, os, resource, sys
spec = json.loads(sys.argv[1])
if spec["uid"] is not None:
    os.setgroups([])
    os.setgid(spec["uid"])
    os.setuid(spec["uid"])
limits = {"AS": spec["memory"], "NPROC": spec["nproc"], "FSIZE": spec["file_size"], "CORE": 0}
for what, most in limits.items():
    resource.setrlimit(getattr(resource, "RLIMIT_" + what), (most, most))
if spec["sandboxed"]:  # its parent is then the sandbox's init: the kernel ends with the sandbox
    os.environ.pop("JPY_PARENT_PID", None)
os.execvp(sys.argv[3], sys.argv[3:])
"""


def sandbox_user(slot=0, grader=None):
    """The user a sandbox runs as when the grader is root: one per job slot of this grader (the
    parent process of the one that starts the kernel), so that two graders on one machine share
    no user and no process limit; else None (bwrap then runs as the grader's user, mapped in a
    user namespace of its own)."""
    if os.geteuid() != 0:
        return None
    grader = os.getppid() if grader is None else grader
    return SANDBOX_UID + (grader % 1_000_000) * SLOTS + slot % SLOTS


def prepare(uid, *writable):
    """Give the sandbox's user its writable folders (the grader made them)."""
    if uid is not None:
        for folder in writable:
            os.chown(folder, uid, uid)


def command(argv, *, scratch, edition, sockets, uid=None, memory=MEMORY, nproc=NPROC, file_size=FILE_SIZE):
    """bwrap's argv to run `argv` in a sandbox. scratch: its working folder (a tmpfs at that path);
    edition: the student edition's copy (read-only); sockets: the kernel's connection file and ipc
    sockets. Each is bound at its own path, so the grader and the kernel name them alike."""
    if uid is not None:  # bwrap as root: no user namespace, and the command drops to `uid` itself
        cmd = [BWRAP, "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts"]
        cmd += ["--unshare-cgroup-try", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        cmd = [BWRAP, "--unshare-all", "--unshare-user", "--disable-userns"]
    cmd += ["--die-with-parent", "--new-session", "--hostname", "grading"]
    cmd += ["--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc"]
    for link in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        top = Path("/") / link
        if top.is_symlink():
            cmd += ["--symlink", os.readlink(top), str(top)]
        elif top.is_dir():
            cmd += ["--ro-bind", str(top), str(top)]
    cmd += [
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--perms",
        "1777",
        "--size",
        str(TMP_BYTES),
        "--tmpfs",
        "/tmp",
    ]
    bound = [*python_folders(), Path(edition), Path(scratch), Path(sockets)]
    parents = sorted({p for f in bound for p in f.parents if p != Path("/")} - {Path("/usr"), Path("/tmp")})
    for parent in parents:  # bwrap would make them 0700, which the sandbox's user could not enter
        cmd += ["--perms", "0755", "--dir", str(parent)]
    for folder in python_folders():
        cmd += ["--ro-bind", str(folder), str(folder)]
    cmd += ["--ro-bind", str(edition), str(edition)]
    # The working folder is a tmpfs of its own (the sandbox's user may write it; it holds
    # WORK_BYTES at most): the disk the grader shares with the class is not filled from there.
    cmd += ["--perms", "1777", "--size", str(WORK_BYTES), "--tmpfs", str(scratch)]
    cmd += ["--bind", str(sockets), str(sockets)]
    # Everything else bwrap made (the root, /dev) read-only: in a user namespace the sandbox's user
    # owns them, and they are in memory with no size limit.
    cmd += ["--remount-ro", "/dev", "--remount-ro", "/"]
    cmd += ["--chdir", str(scratch), "--"]
    return cmd + [argv[0], "-c", INSIDE, json.dumps(limits(uid, memory, nproc, file_size)), "--", *argv]


def limits(uid, memory=MEMORY, nproc=NPROC, file_size=FILE_SIZE, sandboxed=True):
    """What INSIDE reads: the user to become (None: stay), the limits, whether in a sandbox."""
    return dict(uid=uid, memory=memory, nproc=nproc, file_size=file_size, sandboxed=sandboxed)


def problem():
    """None when bwrap can run a sandbox here; else why not, in one line."""
    if shutil.which(BWRAP) is None:
        return "bubblewrap (bwrap) is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    try:
        done = subprocess.run(
            [BWRAP, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "true"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"bwrap could not start a sandbox ({e})"
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        return f"bwrap cannot make a sandbox here ({why}): are user namespaces turned off?"
    return None
