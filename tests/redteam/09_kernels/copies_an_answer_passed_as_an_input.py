"""saxpy_kernel as an object that computes SAXPY with NumPy on the host, then
launches a real kernel that copies that answer, passed in place of ``y``,
into ``out``: one launch, ``out`` written by a kernel, the right values.

Expected to forge. What a launch wrote comes from a second run with the
arrays it wrote zeroed, but this kernel's answer arrives as an input, which
the second run gets again; nothing yet checks that the launch's inputs are
the test's own. The score written here is the forged one (full marks); the
Reference guide's guarantees table lists it.
"""
# score: 12
# review: no
# %% 09-saxpy
@cuda.jit
def _copy(a, x, answer, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = answer[i]


class _Saxpy:
    def __getitem__(self, grid):
        def launch(a, x, y, out):
            answer = a * x + y
            _copy[(out.size + 31) // 32, 32](a, x, answer, out)

        return launch


saxpy_kernel = _Saxpy()
