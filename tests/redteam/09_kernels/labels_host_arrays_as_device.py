"""A fused gradient that passes NumPy X, y and w to the kernel dressed as
numba's device arrays (an object with ``_ary``, ``copy_to_host`` and a CUDA
array interface, so that its type reads as an array's).

The store used to trust the label the kernel's process gave each argument:
"device" data costs no copy, so the download budget (2) held. An argument is
now device data only if it is a handle to an array the store holds; these are
host arrays, their copies are counted (five back), and the fused tests fail.
"""
# score: 9
# zero: 09-fused-test, 09-fused-hidden-test
# review: no
# %% 09-fused
# <reference>


class _Dressed:
    """A NumPy array that looks like numba's device array."""

    def __init__(self, array):
        self._ary = np.ascontiguousarray(array)

    @property
    def __cuda_array_interface__(self):
        return dict(self._ary.__array_interface__, version=3)

    def copy_to_host(self):
        return self._ary.copy()


def fused_gradient(X, y, w, b, blocks=2, threads_per_block=32):
    X_d, y_d, w_d = _Dressed(X), _Dressed(y), _Dressed(w)
    dw, db = _Dressed(np.zeros(X.shape[1])), _Dressed(np.zeros(1))
    fused_gradient_kernel[blocks, threads_per_block](X_d, y_d, w_d, float(b), dw, db)
    return dw.copy_to_host(), float(db.copy_to_host()[0])
