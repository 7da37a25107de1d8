"""``usable_memory("cpu")`` returns a 300 MB bytes object, with the kernel's
own size check on its channel lifted so that the whole frame is sent.

The referee decoded frames up to 256 MB and took a larger one for a broken
channel: the kernel was replaced, the cell replayed, and the next test that
called it broke the channel again. A frame over the limit is now skipped
unread, never decoded; only the request it answered fails, so the two tests
that call ``usable_memory("cpu")`` (Task 2's) lose their points and the
rest of the notebook keeps its own.
"""
# score: 9
# zero: 01-usable-memory-test, 01-usable-memory-hidden-test
# review: yes
# %% 01-usable-memory
# <reference>
import autograder.grading.referee.wire as _wire

_wire.MAX_FRAME = 1 << 31  # this process's check only: the referee keeps its own
_reference_usable = usable_memory


def usable_memory(device):
    if isinstance(device, str) and device == "cpu":
        return b"x" * 300_000_000
    return _reference_usable(device)
