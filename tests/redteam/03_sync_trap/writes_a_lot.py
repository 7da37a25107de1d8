"""Fills its folder with files (each under the per-file limit) in the last task.

The write cap kills the kernel in that cell, before `train_masked` is defined:
its tests earn nothing, and every earlier test keeps its points.
"""
# score: 12
# zero: 03-masked-test, 03-masked-hidden-test
# %% 03-masked
_block = b"x" * (64 * 1024 * 1024)
for _i in range(64):  # 4 GB in all
    with open(f"fill-{_i}.bin", "wb") as _f:
        _f.write(_block)
# <reference>
