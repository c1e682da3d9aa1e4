"""WAL-FC (paper 003, Ch. 6): WAL (policies/wal_re.py: the weighted average load of Eq. 3.16, WAL-RE) with the
buffer feedback controller (policies/buffer_feedback.py)."""
from policies.buffer_feedback import BufferFeedback
from policies.wal_re import WALRemoteExecution


class WALFeedback(BufferFeedback, WALRemoteExecution):
    PARAMS = {**WALRemoteExecution.PARAMS, **BufferFeedback.PARAMS}


POLICY = WALFeedback
