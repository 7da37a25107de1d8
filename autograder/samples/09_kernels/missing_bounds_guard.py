"""One element per thread, no guard and no grid-stride loop."""


# score: 9
# zero: 09-saxpy-test, 09-saxpy-hidden-test
# kind: mistake
# %% 09-saxpy
@cuda.jit
def saxpy_kernel(a, x, y, out):
    i = cuda.grid(1)
    out[i] = a * x[i] + y[i]
