"""launch_config returns n // threads_per_block + 1 blocks: one block too many whenever n is a multiple of the block."""


# score: 9
# zero: 09-launch-config-test, 09-launch-config-hidden-test
# kind: mistake
# %% 09-launch-config
def launch_config(n, threads_per_block=64):
    """(blocks, threads_per_block) with blocks * threads_per_block >= n, blocks
    as small as possible. ValueError for n < 1 or threads_per_block outside 1..1024.
    """
    if n < 1 or threads_per_block < 1 or threads_per_block > 1024:
        raise ValueError("bad launch configuration")
    return n // threads_per_block + 1, threads_per_block


print(launch_config(10, 4), launch_config(1_000_000, 256))
