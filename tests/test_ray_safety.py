"""Safe by default: an embedded Ray listens on the loopback address only (nothing another machine can reach),
and its authentication is Ray's own default, not switched off. Read from /proc: the listening TCP sockets of
every process this test process started (the GCS, the raylet, the workers)."""
import os
from pathlib import Path

import pytest

pytestmark = [pytest.mark.ray, pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="needs Linux /proc")]

LOOPBACK = {"0100007F", "00000000000000000000000001000000"}   # 127.0.0.1 and ::1 as /proc/net/tcp{,6} write them


def descendants(root: int) -> set[int]:
    parent = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError):
                continue                                        # a process that ended meanwhile
    tree, grew = {root}, True
    while grew:
        more = {pid for pid, ppid in parent.items() if ppid in tree} - tree
        tree |= more
        grew = bool(more)
    return tree


def listening(pids: set[int]) -> list[tuple[str, int]]:
    """(address as /proc writes it, port) of every listening TCP socket the processes hold."""
    inodes = set()
    for pid in pids:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
                if link.startswith("socket:["):
                    inodes.add(int(link[8:-1]))
        except OSError:
            continue
    out = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            address, port = fields[1].split(":")
            if fields[3] == "0A" and int(fields[9]) in inodes:         # 0A: LISTEN
                out.append((address, int(port, 16)))
    return out


def test_an_embedded_ray_listens_on_loopback_only(ray_local):
    sockets = listening(descendants(os.getpid()))
    assert len(sockets) >= 3                      # the GCS, the raylet and the object manager at least
    assert all(address in LOOPBACK for address, _ in sockets), sockets
    assert os.environ.get("RAY_AUTH_MODE") != "disabled"
