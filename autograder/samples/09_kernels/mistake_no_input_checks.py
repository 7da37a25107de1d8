"""launch_config computes the right grid but never raises ValueError for a bad n or block size."""


# score: 10
# zero: 09-launch-config-hidden-test
# kind: mistake
# %% 09-launch-config
def launch_config(n, threads_per_block=64):
    """(blocks, threads_per_block) with blocks * threads_per_block >= n, blocks
    as small as possible. ValueError for n < 1 or threads_per_block outside 1..1024.
    """
    # Hint: integer ceiling division, (n + t - 1) // t.
    return (n + threads_per_block - 1) // threads_per_block, threads_per_block


print(launch_config(10, 4), launch_config(1_000_000, 256))
