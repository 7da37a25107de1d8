"""saxpy_kernel as an object that computes SAXPY with NumPy on the host into
``out``, then launches a real kernel that copies ``out`` onto itself
(``out[i] = out[i]``): one launch, every element written by a kernel, the
right values.

What a launch wrote is now taken from a second run of the same kernel on the
same inputs with the arrays it wrote given as zeros: this kernel writes the
zeros back, and the SAXPY tests fail.
"""
# score: 9
# zero: 09-saxpy-test, 09-saxpy-hidden-test
# review: no
# %% 09-saxpy
@cuda.jit
def _copy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = out[i]


class _Saxpy:
    def __getitem__(self, grid):
        def launch(a, x, y, out):
            out[:] = a * x + y
            blocks = (out.size + 31) // 32
            _copy[blocks, 32](a, x, y, out)

        return launch


saxpy_kernel = _Saxpy()
