"""Every public read of device data is one counted copy home; device work is none.

Torch tensors on the simulated GPU of course.sync, and device arrays of
course.fakecupy: each way to read values on the host is counted exactly once per
call, by SyncCounter (a synchronisation) and, for fake_cupy, by TransferCounter
(a download). Uploads to the fake device are counted by TransferCounter only.
"""

from __future__ import annotations

import copy
import inspect
import io
import pickle

import numpy as np
import pytest
import torch

from course.fakecupy import (
    READ_METHODS,
    DeviceArray,
    TransferCounter,
    fake_cupy,
    to_device,
)
from course.sync import SyncCounter

CALLS = 3  # each read is made this many times: counted CALLS times

# --- torch tensors on the simulated device --------------------------------------

TORCH_READS = {
    "numpy.asarray": (lambda t, s: np.asarray(t), "Tensor.__array__"),
    "numpy.array": (lambda t, s: np.array(t), "Tensor.__array__"),
    "numpy.array(dtype)": (lambda t, s: np.array(t, np.float64), "Tensor.__array__"),
    "__array__": (lambda t, s: t.__array__(), "Tensor.__array__"),
    "numpy": (lambda t, s: t.numpy(), "Tensor.numpy"),
    "tolist": (lambda t, s: t.tolist(), "Tensor.tolist"),
    "item": (lambda t, s: s.item(), "Tensor.item"),
    "print": (lambda t, s: print(t), "Tensor.__repr__"),
    "str": (lambda t, s: str(t), "Tensor.__repr__"),
    "repr": (lambda t, s: repr(t), "Tensor.__repr__"),
    "bool": (lambda t, s: bool(s), "Tensor.__bool__"),
    "if": (lambda t, s: 1 if s > 0 else 0, "Tensor.__bool__"),
    "format(0-d, spec)": (lambda t, s: format(s, ".3f"), "Tensor.__format__"),
    "format(1-d)": (lambda t, s: format(t, ""), "Tensor.__format__"),
    "f-string": (lambda t, s: f"{s}", "Tensor.__format__"),
    "f-string(spec)": (lambda t, s: f"loss {s:.4f}", "Tensor.__format__"),
    "float": (lambda t, s: float(s), "Tensor.__float__"),
    "int": (lambda t, s: int(s), "Tensor.__int__"),
    "complex": (lambda t, s: complex(s), "Tensor.__complex__"),
    "index": (lambda t, s: [0, 1, 2][s.long() - 3], "Tensor.__index__"),
    "in": (lambda t, s: 1.5 in t, "Tensor.__contains__"),
    "cpu": (lambda t, s: t.cpu(), "Tensor.cpu"),
    "to(cpu)": (lambda t, s: t.to("cpu"), "Tensor.to(cpu)"),
}


@pytest.fixture
def loss():
    """A 1-d tensor and its sum, made before any counter: on the device."""
    t = torch.tensor([1.5, 2.5])
    return t, t.sum()


@pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")
@pytest.mark.parametrize("name", list(TORCH_READS))
def test_each_torch_read_is_one_sync_per_call(name, loss, capsys):
    read, op = TORCH_READS[name]
    with SyncCounter(simulate=True) as syncs:
        for _ in range(CALLS):
            read(*loss)
    assert syncs.by_op() == {op: CALLS}, syncs.summary()
    assert syncs.count == CALLS


@pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")
def test_numpy_asarray_of_the_loss_every_epoch_is_a_sync_every_epoch():
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1)
    X, y = torch.randn(16, 3), torch.randn(16, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with SyncCounter(simulate=True) as syncs:
        history = []
        for _ in range(7):
            loss = torch.nn.functional.mse_loss(model(X), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            history.append(np.asarray(loss.detach()))
    assert syncs.by_op() == {"Tensor.__array__": 7}


def test_device_work_on_tensors_reads_nothing(loss):
    t, s = loss
    with SyncCounter(simulate=True) as syncs:
        z = (t * 2 + 1).relu().sum() / s
        torch.stack([z, s]).mean()
        torch.where(t > 2, t, -t)
        t[0], t[1:], t.clone(), t.detach(), t.to(torch.float64), t.view(2, 1)
        list(t)  # iteration: 0-d tensors, still on the device
        len(t), t.shape, t.dtype, t.device, t.numel(), t.requires_grad
        t.unsqueeze(0).T.contiguous()
    assert syncs.count == 0, syncs.summary()


def test_reading_host_tensors_made_in_the_block_costs_nothing():
    with SyncCounter(simulate=True) as syncs:
        host = torch.zeros(3)
        np.asarray(host), host.tolist(), str(host), float(host.sum())
        np.asarray(torch.from_numpy(np.ones(2)))
    assert syncs.count == 0


@pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")
def test_without_simulation_cpu_tensors_are_on_the_host(loss):
    t, s = loss
    with SyncCounter(simulate=False) as syncs:
        np.asarray(t), np.array(t), 1.5 in t, complex(s)
    assert syncs.count == 0


# --- fake_cupy device arrays -----------------------------------------------------


@pytest.fixture
def X():
    return to_device(np.arange(6, dtype=np.float32).reshape(2, 3))


def _save(d, path):
    np.save(io.BytesIO(), d)


FAKE_READS = {
    "get": (lambda d, p: d.get(), "DeviceArray.get"),
    "copy_to_host": (lambda d, p: d.copy_to_host(), "DeviceArray.copy_to_host"),
    "fake_cupy.asnumpy": (lambda d, p: fake_cupy.asnumpy(d), "fake_cupy.asnumpy"),
    "tobytes": (lambda d, p: d.tobytes(), "DeviceArray.tobytes"),
    "tolist": (lambda d, p: d.tolist(), "DeviceArray.tolist"),
    "item": (lambda d, p: d.sum().item(), "DeviceArray.item"),
    "item(i)": (lambda d, p: d.item(4), "DeviceArray.item"),
    "print": (lambda d, p: print(d), "DeviceArray.__str__"),
    "str": (lambda d, p: str(d), "DeviceArray.__str__"),
    "repr": (lambda d, p: repr(d), "DeviceArray.__repr__"),
    "bool": (lambda d, p: bool(d.sum()), "DeviceArray.__bool__"),
    "if": (lambda d, p: 1 if d.sum() > 0 else 0, "DeviceArray.__bool__"),
    "format(spec)": (lambda d, p: format(d.sum(), ".2f"), "DeviceArray.__format__"),
    "f-string": (lambda d, p: f"{d}", "DeviceArray.__format__"),
    "f-string(spec)": (lambda d, p: f"{d.max():.1f}", "DeviceArray.__format__"),
    "float": (lambda d, p: float(d.sum()), "DeviceArray.__float__"),
    "int": (lambda d, p: int(d.sum()), "DeviceArray.__int__"),
    "complex": (lambda d, p: complex(d.sum()), "DeviceArray.__complex__"),
    "dumps": (lambda d, p: d.dumps(), "DeviceArray.dumps"),
    "dump": (lambda d, p: d.dump(p / "d.pkl"), "DeviceArray.dump"),
    "tofile": (lambda d, p: d.tofile(str(p / "d.bin")), "DeviceArray.tofile"),
    "pickle.dumps": (lambda d, p: pickle.dumps(d), "DeviceArray.__reduce__"),
    "numpy.save": (_save, "DeviceArray.get"),
    "fake_cupy.save": (
        lambda d, p: fake_cupy.save(io.BytesIO(), d),
        "DeviceArray.get",
    ),
    "numpy.array2string": (lambda d, p: np.array2string(d), "DeviceArray.get"),
    "numpy.array_repr": (lambda d, p: np.array_repr(d), "DeviceArray.get"),
    "numpy.array_str": (lambda d, p: np.array_str(d), "DeviceArray.get"),
}


@pytest.mark.parametrize("name", list(FAKE_READS))
def test_each_device_array_read_is_one_sync_and_one_download(name, X, tmp_path):
    read, op = FAKE_READS[name]
    with SyncCounter() as syncs, TransferCounter() as copies:
        for _ in range(CALLS):
            read(X, tmp_path)
    assert syncs.by_op() == {op: CALLS}, syncs.summary()
    assert copies.by_op() == {op: CALLS}, copies.summary()
    assert (copies.downloads, copies.uploads) == (CALLS, 0)


def test_every_read_method_is_counted_by_both_counters(X, tmp_path):
    recipes = {
        "get": "get",
        "copy_to_host": "copy_to_host",
        "item": "item",
        "tolist": "tolist",
        "tobytes": "tobytes",
        "tofile": "tofile",
        "dump": "dump",
        "dumps": "dumps",
        "__float__": "float",
        "__int__": "int",
        "__complex__": "complex",
        "__bool__": "bool",
        "__repr__": "repr",
        "__str__": "str",
        "__format__": "f-string",
        "__reduce__": "pickle.dumps",
    }
    assert set(recipes) == set(READ_METHODS)
    for method, recipe in recipes.items():
        read, op = FAKE_READS[recipe]
        assert op == f"DeviceArray.{method}"
        with SyncCounter() as syncs, TransferCounter() as copies:
            read(X, tmp_path)
        assert syncs.count == copies.downloads == 1, method


def test_implicit_conversions_raise_and_read_nothing(X):
    with SyncCounter() as syncs, TransferCounter() as copies:
        for convert in (np.asarray, np.array, lambda d: d.__array__()):
            with pytest.raises(TypeError, match="Implicit conversion"):
                convert(X)
        for name in ("data", "ctypes"):
            with pytest.raises(AttributeError, match="cannot be read on the host"):
                getattr(X, name)
    assert syncs.count == 0 and copies.events == []


def test_comparisons_answer_on_the_device_and_reading_them_is_counted(X):
    with SyncCounter() as syncs:
        answers = [
            np.allclose(X, X),
            fake_cupy.allclose(X, X + 1e-9),
            np.array_equal(X, X),
            fake_cupy.array_equiv(X, X[0]),
        ]
    assert syncs.count == 0
    assert all(isinstance(a, DeviceArray) and a.shape == () for a in answers)
    with SyncCounter() as syncs:
        assert [bool(a) for a in answers] == [True, True, True, False]
    assert syncs.by_op() == {"DeviceArray.__bool__": 4}


def test_reads_made_inside_numpy_or_fake_cupy_name_the_callers_line(X):
    with SyncCounter() as syncs, TransferCounter() as copies:
        np.save(io.BytesIO(), X)
        fake_cupy.asnumpy(X)
        pickle.dumps(X)
        X.dumps()
        f"{X}"
    source, start = inspect.getsourcelines(
        test_reads_made_inside_numpy_or_fake_cupy_name_the_callers_line
    )
    first = start + next(i for i, line in enumerate(source) if "np.save" in line)
    lines = [f"test_counted_reads.py:{first + i}" for i in range(5)]
    assert [event.where.rsplit("/", 1)[-1] for event in syncs.events] == lines
    assert [event.where.rsplit("/", 1)[-1] for event in copies.events] == lines


def test_copies_record_their_size_and_caller(X):
    with TransferCounter() as copies:
        X.get()
        X.item(0)
    get, item = copies.events
    assert (get.direction, get.nbytes) == ("download", X.nbytes)
    assert item.nbytes == X.itemsize
    assert get.where.rsplit("/", 1)[-1].startswith("test_counted_reads.py:")
    assert "1 x download DeviceArray.get" in copies.summary()


# --- uploads ----------------------------------------------------------------------


def test_uploads_are_counted_and_are_not_syncs():
    host = np.ones((4, 3))
    with SyncCounter() as syncs, TransferCounter() as copies:
        for _ in range(4):
            fake_cupy.asarray(host)
    assert copies.uploads == 4 and copies.downloads == 0
    assert copies.by_op("upload") == {"fake_cupy.asarray": 4}
    assert {event.nbytes for event in copies.events} == {host.nbytes}
    assert syncs.count == 0


@pytest.mark.parametrize(
    "upload, op",
    [
        (lambda h: fake_cupy.asarray(h), "fake_cupy.asarray"),
        (lambda h: fake_cupy.asarray(h, dtype=np.float32), "fake_cupy.asarray"),
        (lambda h: fake_cupy.asarray(h.tolist()), "fake_cupy.asarray"),
        (lambda h: fake_cupy.asarray(2.5), "fake_cupy.asarray"),
        (lambda h: fake_cupy.array(h), "fake_cupy.array"),
        (lambda h: to_device(h), "to_device"),
        (lambda h: DeviceArray(h), "DeviceArray"),
    ],
    ids=["asarray", "asarray-dtype", "list", "scalar", "array", "to_device", "init"],
)
def test_each_upload_is_counted_once(upload, op):
    host = np.arange(3.0)
    with TransferCounter() as copies:
        d = upload(host)
    assert isinstance(d, DeviceArray)
    assert copies.by_op() == {op: 1} and copies.uploads == 1


def test_a_pickle_round_trip_is_a_download_and_an_upload(X):
    with TransferCounter() as copies:
        back = pickle.loads(pickle.dumps(X))
    assert isinstance(back, DeviceArray)
    np.testing.assert_array_equal(back.get(), X.get())
    assert copies.by_op("download") == {"DeviceArray.__reduce__": 1}
    assert copies.by_op("upload") == {"DeviceArray (unpickled)": 1}


def test_arrays_already_on_the_device_are_not_uploaded(X):
    with TransferCounter() as copies:
        same = fake_cupy.asarray(X)
        fake_cupy.asarray(X, dtype=np.float64)
        joined = fake_cupy.asarray([X.sum(), X.max()])
        twin = fake_cupy.array(X)  # a copy, made on the device
    assert copies.events == []
    assert same is X and joined.shape == (2,)
    twin[0, 0] = 100.0
    assert float(X[0, 0]) == 0.0


def test_nested_transfer_counters_each_see_every_copy(X):
    with TransferCounter() as outer:
        fake_cupy.asarray(np.zeros(2))
        with TransferCounter() as inner:
            X.get()
    assert (outer.uploads, outer.downloads) == (1, 1)
    assert (inner.uploads, inner.downloads) == (0, 1)
    outer.events.clear()  # a copy of the store's events: the count stays
    assert (outer.uploads, outer.downloads) == (1, 1)


# --- device work is not a read ----------------------------------------------------


def test_device_work_on_device_arrays_copies_nothing(X):
    with SyncCounter() as syncs, TransferCounter() as copies:
        Z = (X - X.mean(axis=0)) / (X.std(axis=0) + 1)
        np.exp(Z), np.mean(Z), fake_cupy.stack([Z, Z]), Z @ Z.T
        Z[0], Z[:, 1:], Z.reshape(3, 2), Z.T, Z.astype(np.float64), Z.sum()
        Z[0, 0] = Z[1, 1]
        Z += 1.0
        list(Z), len(Z), Z.shape, Z.dtype, Z.size, Z.ndim, Z.nbytes, Z.device
        copy.copy(Z), copy.deepcopy(Z), Z.copy()
        Z.flat[2], list(Z.flat), len(Z.flat)
        Z.flat[0] = Z.flat[1]
        fake_cupy.zeros(3), fake_cupy.ones_like(Z), fake_cupy.arange(4)
        fake_cupy.count_nonzero(Z), fake_cupy.random.default_rng(0).normal(size=2)
    assert syncs.count == 0, syncs.summary()
    assert copies.events == [], copies.summary()


def test_flat_and_copies_stay_device_arrays(X):
    assert isinstance(X.flat[4], DeviceArray) and float(X.flat[4]) == 4.0
    assert all(isinstance(v, DeviceArray) for v in X.flat)
    twin = copy.deepcopy(X)
    assert isinstance(twin, DeviceArray) and twin is not X
    twin[0, 0] = 9.0
    assert float(X[0, 0]) == 0.0


def test_sync_counter_restores_the_read_methods():
    before = {name: DeviceArray.__dict__[name] for name in READ_METHODS}
    with pytest.raises(ZeroDivisionError), SyncCounter():
        raise ZeroDivisionError
    assert {name: DeviceArray.__dict__[name] for name in READ_METHODS} == before


def test_sync_counter_watches_the_reads_of_a_real_cupy_and_restores_them():
    cupy = pytest.importorskip("cupy")
    before = dict(vars(cupy.ndarray))
    with SyncCounter() as syncs:
        patched = {
            name
            for name in ("__str__", "__reduce__", "tobytes", "dumps")
            if name in vars(cupy.ndarray)
        }
    assert patched == {"__str__", "__reduce__", "tobytes", "dumps"}
    assert "cupy.ndarray.__str__" not in syncs.unpatched
    assert dict(vars(cupy.ndarray)) == before
