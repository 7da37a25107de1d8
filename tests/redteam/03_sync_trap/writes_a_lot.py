"""Fills its folder with files (each under the per-file limit) in the last task.

The write cap kills the main kernel, which decides nothing. The measured run
skips the top-level writes and loads the cell's function, which is right:
every test keeps its points.
"""
# score: 12
# %% 03-crossover
_block = b"x" * (64 * 1024 * 1024)
for _i in range(64):  # 4 GB in all
    with open(f"fill-{_i}.bin", "wb") as _f:
        _f.write(_block)
# <reference>
