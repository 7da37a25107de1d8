"""SAXPY that collects its results in a Python list shared by all threads.

In the simulator every thread is a Python thread, so appending to a list
at the top of the cell "works". No CUDA kernel can touch a Python list: the
compile step refuses it, so SAXPY's tests fail.
"""
# score: 9
# zero: 09-saxpy-test, 09-saxpy-hidden-test
# review: no
# %% 09-saxpy
SEEN = []


@cuda.jit
def saxpy_kernel(a, x, y, out):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.shape[0], stride):
        SEEN.append(i)
        out[i] = a * x[i] + y[i]
