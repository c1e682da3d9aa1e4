"""Safe by default: nowemu leaves Ray's authentication at Ray's own default (a token, on for a new local
cluster), which the project once switched off. (Ray 2.60's servers listen on every interface whatever node
address they are given, read from /proc: the GCS, the raylet, the driver and the workers on [::], its
runtime-env agent on the machine's outward address; the token is what keeps other machines out.)"""
import os


def test_nowemu_does_not_switch_rays_authentication_off(monkeypatch):
    from emu.engine import ray_runtime
    monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
    ray_runtime._environment()
    assert "RAY_AUTH_MODE" not in os.environ
    assert os.environ["RAY_USAGE_STATS_ENABLED"] == "0"          # (the settings it does make are made)
