"""IO-FC (paper 003, Ch. 6): IO (policies/io_re.py: the I/O load alone; Ch. 6's "IO" is Ch. 3's IO-RE) with the
buffer feedback controller (policies/buffer_feedback.py)."""
from policies.buffer_feedback import BufferFeedback
from policies.io_re import IORemoteExecution


class IOFeedback(BufferFeedback, IORemoteExecution):
    PARAMS = {**IORemoteExecution.PARAMS, **BufferFeedback.PARAMS}


POLICY = IOFeedback
