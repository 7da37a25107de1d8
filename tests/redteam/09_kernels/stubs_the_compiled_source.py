"""A fused gradient whose kernel calls np.dot, and which then gives each
launch record the agent kept a stub's source that CUDA compiles.

The compile step compiled those records, so the stub passed and the kernel
CUDA refuses earned full marks. It now compiles the source the store ran,
with the types the store ran it with; nothing in the kernel's process is
read, and the fused tests fail as without the trick.
"""
# score: 9
# zero: 09-fused-test, 09-fused-hidden-test
# review: yes
# %% 09-fused
import autograder.grading.referee.agent as _agent

_STUB = (
    "from numba import cuda\n\n\n@cuda.jit\n"
    "def fused_gradient_kernel(X, y, w, b, dw, db):\n    pass\n"
)


@cuda.jit
def fused_gradient_kernel(X, y, w, b, dw, db):
    n, d = X.shape
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        error = np.dot(X[i], w) + b - y[i]
        scale = 2.0 * error / n
        for j in range(d):
            cuda.atomic.add(dw, j, scale * X[i, j])
        cuda.atomic.add(db, 0, scale)


def fused_gradient(X, y, w, b, blocks=2, threads_per_block=32):
    dw = np.zeros(X.shape[1], dtype=np.float64)
    db = np.zeros(1, dtype=np.float64)
    fused_gradient_kernel[blocks, threads_per_block](X, y, w, float(b), dw, db)
    for record in getattr(getattr(_agent, "AGENT", None), "launches", None) or []:
        if isinstance(record, list) and len(record) == 3:
            record[2] = _STUB
    return dw, float(db[0])
