"""Leaves a file in its folder on the first run, dies in the third answer
cell, and answers Task 4 right only when it finds the file again: only when
it runs as the replacement kernel that replays the cells before the death.

The replacement kernel started in the dead one's folder, found the file, and
Task 4 kept its points (9). It now starts in a new, empty folder with the
environment every kernel gets: it cannot tell a replay from a first run, so
Task 4 is wrong there too, and Task 3 (the cell it died in) earns nothing.
"""
# score: 6
# zero: 01-training-memory-test, 01-training-memory-hidden-test, 01-largest-matrix-test, 01-largest-matrix-hidden-test
# review: no
# %% 01-pick-device
import os

REPLAYED = os.path.exists("was-here")
open("was-here", "w").close()
# <reference>
# %% 01-training-memory
import os

os.abort()
# %% 01-largest-matrix
# <reference>
if not REPLAYED:

    def largest_square_matrix(free_bytes, dtype=torch.float32, copies=3):
        raise RuntimeError("this answer is written for a replay only")
