"""No sharing: every job runs on its home workstation (the papers' "Base")."""
from policies.base import Policy


class Local(Policy):
    reads_index = False


POLICY = Local
