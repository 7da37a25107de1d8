"""A grid of n // threads blocks: too few whenever n is not a multiple."""


# score: 6
# zero: 09-launch-config-test, 09-launch-config-hidden-test, 09-reduce-test, 09-reduce-hidden-test
# kind: mistake
# %% 09-launch-config
def launch_config(n, threads_per_block=64):
    if n < 1 or not 1 <= threads_per_block <= 1024:
        raise ValueError("bad launch")
    return n // threads_per_block, threads_per_block
