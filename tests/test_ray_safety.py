"""Safe by default: an embedded Ray keeps Ray's own authentication (a token, on for a new local cluster), which
the project once switched off. Ray 2.60's servers listen on every interface whatever node address they are
given (read from /proc: the GCS, the raylet, the driver and the workers on [::], its runtime-env agent on the
machine's outward address); the token is what keeps other machines out."""
import os

import pytest

pytestmark = pytest.mark.ray


def test_an_embedded_ray_keeps_token_authentication(ray_local):
    from ray._raylet import AuthenticationMode, get_authentication_mode
    assert os.environ.get("RAY_AUTH_MODE") != "disabled"
    assert get_authentication_mode() == AuthenticationMode.TOKEN
