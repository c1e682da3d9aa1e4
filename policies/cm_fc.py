"""CM-FC (paper 003, Ch. 6): CM (policies/cm_re.py: Zhang et al.'s CPU-memory rule, the thesis's "CM" of Ch. 6)
with the buffer feedback controller (policies/buffer_feedback.py)."""
from policies.buffer_feedback import BufferFeedback
from policies.cm_re import CMRemoteExecution


class CMFeedback(BufferFeedback, CMRemoteExecution):
    PARAMS = {**CMRemoteExecution.PARAMS, **BufferFeedback.PARAMS}


POLICY = CMFeedback
