"""A network of the process's own, with loopback only, for the embedded Ray.

Ray 2.60's servers (GCS, raylet, object manager, every worker's gRPC server) listen on every interface
whatever node address they are given, and its runtime-env agent on the machine's outward address: anyone
who could reach the machine during a run would reach them. Ray offers no setting to bind them to loopback.
So `nowemu`, before anything else starts, moves itself into a new network namespace (owned by a new user
namespace, so no privilege is needed) in which the only interface is loopback; the Ray it embeds inherits
it, and nothing it listens on can be reached from another machine. Files, /dev/shm and the user's identity
are as before (the user namespace maps the user to itself). Joining a cluster (`--address`) needs the
machine's network, so it is not done then.

Where the kernel refuses (not Linux, unprivileged user namespaces disabled), the run goes on in the
machine's network with Ray's token authentication as its guard, and start_ray says so in one line.
"""
from __future__ import annotations

import ctypes
import fcntl
import os
import socket
import struct
import sys

CLONE_NEWUSER, CLONE_NEWNET = 0x10000000, 0x40000000
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
IFREQ = "16sh22x"                  # struct ifreq: the interface name, its flags, the rest of the union

# why enter() could not give the process a network of its own (None: it did, or was not asked to)
refused: str | None = None


def enter() -> None:
    """Move this process into a network namespace with loopback only (see the module docstring). It must
    run before the process starts a thread (numpy starts one at import), as unshare() requires."""
    global refused
    refused = _unshare()


def _unshare() -> str | None:
    if not sys.platform.startswith("linux"):
        return f"needs Linux (this is {sys.platform})"
    if len(os.listdir("/proc/self/task")) > 1:
        return "the process already runs threads"
    uid, gid = os.getuid(), os.getgid()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0:
        return f"the kernel refused a user namespace ({os.strerror(ctypes.get_errno())})"
    # from here the process is in the new network, where loopback starts down: bring it up or stop
    try:
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
            with open(f"/proc/self/{name}", "w") as fh:
                fh.write(text)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            flags = struct.unpack(IFREQ, fcntl.ioctl(s, SIOCGIFFLAGS, struct.pack(IFREQ, b"lo", 0)))[1]
            fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack(IFREQ, b"lo", flags | IFF_UP))
    except OSError as exc:
        raise SystemExit(f"nowemu: error: in a network of its own, loopback could not be brought up ({exc})") from None
    # Ray's switch for a Ray of one machine: its node address is loopback, not found by a connection to a
    # public address (which this network cannot make, and Ray would warn of on every start)
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    return None
