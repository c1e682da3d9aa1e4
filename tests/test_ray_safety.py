"""Safe by default. An embedded Ray listens on loopback only: `nowemu` runs it in a network namespace of its
own whose only interface is loopback (Ray 2.60's servers listen on every interface whatever node address
they are given: read from /proc, the GCS, the raylet, the driver and the workers on [::], the runtime-env
agent on the machine's outward address). Ray's authentication stays at Ray's own default, which the
project once switched off. Ctrl-C ends a run with one line, even twice."""
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT


def test_nowemu_does_not_switch_rays_authentication_off(monkeypatch):
    from emu.engine import ray_runtime
    monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
    ray_runtime._environment()
    assert "RAY_AUTH_MODE" not in os.environ
    assert os.environ["RAY_USAGE_STATS_ENABLED"] == "0"          # (the settings it does make are made)


def _paced_run(tmp_path):
    """A paced quick-start run through the program, as a user starts it, up to its clock running."""
    proc = subprocess.Popen([sys.executable, "-m", "emu", "run", "scenarios/quickstart.toml", "--runtime", "paced",
                             "--no-view", "--out", str(tmp_path / "run")], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            # as from a terminal: a shell starts a background job (CI's, say) with SIGINT ignored,
                            # and a child inherits that
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    for line in proc.stdout:
        if "participants started" in line:
            return proc
    pytest.fail(f"the run did not start: {proc.communicate(timeout=60)[1][-2000:]}")


def _read(path: str) -> str:
    try:
        with open(path) as fh:
            return fh.read()
    except OSError:                                   # the process has ended
        return ""


def _descendants(root: int) -> list[int]:
    parent = {int(pid): int(stat.rsplit(")", 1)[1].split()[1])
              for pid in filter(str.isdigit, os.listdir("/proc")) if (stat := _read(f"/proc/{pid}/stat"))}
    found, todo = [], [root]
    while todo:
        p = todo.pop()
        found.append(p)
        todo += [c for c, pp in parent.items() if pp == p]
    return found


def _listening(pid: int) -> list[str]:
    """The addresses of the listening TCP sockets in `pid`'s network namespace, as /proc writes them."""
    return [fields[1] for family in ("tcp", "tcp6") for fields in
            (line.split() for line in open(f"/proc/{pid}/net/{family}").readlines()[1:]) if fields[3] == "0A"]


@pytest.mark.ray
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="network namespaces are Linux's")
def test_an_embedded_ray_cannot_be_reached_from_another_machine(tmp_path):
    proc = _paced_run(tmp_path)
    try:
        time.sleep(2)
        pids = _descendants(proc.pid)
        namespaces = {os.readlink(f"/proc/{p}/ns/net") for p in pids if os.path.exists(f"/proc/{p}/ns")}
        if namespaces == {os.readlink("/proc/self/ns/net")}:
            proc.kill()
            pytest.skip(f"this kernel refuses unprivileged network namespaces: {proc.communicate()[1].strip()}")
        names = " ".join(_read(f"/proc/{p}/cmdline") for p in pids)
        assert "gcs_server" in names and "raylet" in names
        assert len(namespaces) == 1                  # the driver, the GCS, the raylet and every worker: one network
        with open(f"/proc/{proc.pid}/net/dev") as fh:
            interfaces = [line.split(":")[0].strip() for line in fh.readlines()[2:]]
        assert interfaces == ["lo"]                  # ... whose one interface is loopback
        assert len(_listening(proc.pid)) >= 3        # ... where Ray's servers do listen
    finally:
        proc.kill()
        proc.communicate(timeout=60)


@pytest.mark.ray
def test_ctrl_c_twice_ends_a_run_with_one_line(tmp_path):
    proc = _paced_run(tmp_path)
    time.sleep(1)
    os.killpg(proc.pid, signal.SIGINT)               # a terminal's Ctrl-C goes to the whole process group
    time.sleep(0.3)
    os.killpg(proc.pid, signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr
    assert "nowemu: interrupted: the run under way was not kept" in stderr
    assert not (tmp_path / "run").exists()


def test_a_process_with_threads_is_not_moved_and_says_why():
    """unshare() of a user namespace needs a single-threaded process: nowemu tries first thing; a library
    caller (this test process runs numpy's threads) stays where it is, and is told why."""
    import threading
    from emu.engine import loopback
    before = os.readlink("/proc/self/ns/net") if sys.platform.startswith("linux") else None
    release = threading.Event()
    worker = threading.Thread(target=release.wait)   # a thread for certain (numpy's may not be started yet)
    worker.start()
    try:
        assert loopback._unshare() in ("the process already runs threads", f"needs Linux (this is {sys.platform})")
    finally:
        release.set()
        worker.join()
    assert before is None or os.readlink("/proc/self/ns/net") == before
