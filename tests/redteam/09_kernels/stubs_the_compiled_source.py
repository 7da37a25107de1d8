"""A fused gradient whose kernel calls np.dot, with the agent's launch
recorder replaced by one that gives each record a stub's source, which CUDA
compiles.

The compile step compiled those records, so the stub passed and the kernel
CUDA refuses earned full marks. It now compiles the source the store ran,
with the types the store ran it with; nothing in the kernel's process is
read, and the fused tests fail as without the trick.
"""
# score: 9
# zero: 09-fused-test, 09-fused-hidden-test
# review: yes
# %% 09-fused
import autograder.grading.referee.launches as _launches

_STUB = (
    "from numba import cuda\n\n\n@cuda.jit\n"
    "def fused_gradient_kernel(X, y, w, b, dw, db):\n    pass\n"
)
_real_record = getattr(_launches, "launch_record", None)
if _real_record is not None:

    def _stubbed(kernel, args, source=None):
        name, signature, _ = _real_record(kernel, args, source)
        return [name, signature, _STUB]

    _launches.launch_record = _stubbed


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
    X_d, y_d, w_d = cuda.to_device(X), cuda.to_device(y), cuda.to_device(w)
    dw = cuda.to_device(np.zeros(X.shape[1], dtype=np.float64))
    db = cuda.to_device(np.zeros(1, dtype=np.float64))
    fused_gradient_kernel[blocks, threads_per_block](X_d, y_d, w_d, float(b), dw, db)
    return dw.copy_to_host(), float(db.copy_to_host()[0])


rng = np.random.default_rng(6)
X_small, y_small = rng.normal(size=(40, 3)), rng.normal(size=40)
w_small, b_small = rng.normal(size=3), 0.5
