"""Pause-and-Migrate (paper 004, spec §4.4): as Immediate-Eviction, but a foreign job stopped by its owner's
return is suspended for `pause` first, and resumes in place if the node turns idle within it; only then does
it migrate to a free idle node. The paper does not give the pause (spec A1): 60 s by default, the length of
the recruitment threshold's keyboard silence. Pauses are checked at each load-index refresh."""
from policies.immediate_eviction import ImmediateEviction


class PauseAndMigrate(ImmediateEviction):
    PARAMS = {"pause": ("time", 60.0, "how long a stopped foreign job waits for its owner to leave before migrating")}

    def leaves(self, node) -> bool:
        return node.now - node.owner.since >= self.pause


POLICY = PauseAndMigrate
