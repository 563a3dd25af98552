"""The wire between grading/grade.py and the student's process (grading/runner.py).

Values cross as plain data only: JSON for numbers, strings and containers, NumPy's .npy
format (no pickles) for arrays. An ndarray subclass arrives as a plain ndarray, a tensor as a
plain tensor; a function becomes a handle that the other side calls back through the wire;
anything else becomes an Opaque placeholder that no check accepts. Either side may call the
other while a call is pending (a student's check_backward calls the test's forward).
"""

import builtins
import io
import json
import linecache
import os
import select
import struct
import sys
import time

import numpy as np

from upkeep.cells import without_magics

SCALARS = (type(None), bool, int, float, str)


def compile_cell(source, name):
    """Compile a notebook cell (magics blanked) so that inspect can read its source."""
    text = without_magics(source)
    filename = f"<{name}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    return compile(text, filename, "exec")


class Opaque:
    """A value that cannot cross the wire (its type name is kept for messages)."""

    def __init__(self, kind):
        self.kind = kind

    def __repr__(self):
        return f"<{self.kind} from the student's process>"


class RemoteError(Exception):
    """An exception raised on the other side of the wire."""


def remote_exception(kind, message):
    """A built-in exception type crosses as itself (a test may expect ValueError), any
    other as a RemoteError that names it."""
    builtin = getattr(builtins, kind, None)
    if isinstance(builtin, type) and issubclass(builtin, Exception):
        return builtin(message)
    return RemoteError(f"{kind}: {message}")


class WireTimeout(Exception):
    """The other side did not answer in time."""


class Channel:
    def __init__(self, read_fd, write_fd):
        self.read_fd, self.write_fd = read_fd, write_fd
        self.handles = []  # local callables the other side may call

    # -- framing: 4-byte length, JSON header, then the header's blobs -------------------
    def send(self, header, blobs=()):
        header = dict(header, blobs=[len(b) for b in blobs])
        data = json.dumps(header).encode()
        os.write(self.write_fd, struct.pack("<I", len(data)) + data)
        for blob in blobs:
            view = memoryview(blob)
            while view:
                view = view[os.write(self.write_fd, view) :]

    def _read(self, n, deadline):
        chunks = []
        while n:
            if deadline is not None:
                wait = deadline - _now()
                if wait <= 0 or not select.select([self.read_fd], [], [], wait)[0]:
                    raise WireTimeout("no answer in time")
            chunk = os.read(self.read_fd, min(n, 1 << 20))
            if not chunk:
                raise EOFError("the other process ended")
            chunks.append(chunk)
            n -= len(chunk)
        return b"".join(chunks)

    def receive(self, timeout=None):
        deadline = None if timeout is None else _now() + timeout
        (size,) = struct.unpack("<I", self._read(4, deadline))
        header = json.loads(self._read(size, deadline))
        blobs = [self._read(n, deadline) for n in header.pop("blobs")]
        return header, blobs

    # -- calls ----------------------------------------------------------------------------
    def request(self, header, blobs=(), timeout=None):
        """Send a request; serve the other side's calls until its answer comes."""
        self.send(header, blobs)
        while True:
            reply, reply_blobs = self.receive(timeout)
            if reply["op"] == "call":
                self.serve_call(reply, reply_blobs)
                continue
            if reply["op"] == "raise":
                raise remote_exception(reply["type"], reply["message"])
            return reply, reply_blobs

    def serve_call(self, header, blobs):
        try:
            fn = self.handles[header["handle"]]
            args = self.decode(header["args"], blobs)
            value = fn(*args, **self.decode(header["kwargs"], blobs))
            out = []
            header = {"op": "return", "value": self.encode(value, out)}
            # Arrays the function wrote into go back too (a kernel fills its outputs).
            header["args"] = [
                self.encode(a, out) if isinstance(a, np.ndarray) else None for a in args
            ]
            self.send(header, out)
        except Exception as error:  # raised again on the caller's side
            self.send(
                {"op": "raise", "type": type(error).__name__, "message": str(error)}
            )

    def call_remote(self, handle, args, kwargs, timeout=None):
        blobs = []
        header = {
            "op": "call",
            "handle": handle,
            "args": self.encode(list(args), blobs),
        }
        header["kwargs"] = self.encode(dict(kwargs), blobs)
        reply, reply_blobs = self.request(header, blobs, timeout)
        for mine, theirs in zip(args, reply["args"]):
            if isinstance(mine, np.ndarray) and theirs is not None:
                theirs = self.decode(theirs, reply_blobs)
                if isinstance(theirs, np.ndarray) and theirs.shape == mine.shape:
                    if mine.flags.writeable and not np.array_equal(mine, theirs):
                        mine[...] = theirs
        return self.decode(reply["value"], reply_blobs)

    # -- values ---------------------------------------------------------------------------
    def encode(self, value, blobs):
        if type(value) in SCALARS:
            return {"t": "py", "v": value}
        if isinstance(value, np.ndarray):
            try:
                return {
                    "t": "array",
                    "b": _blob(blobs, np.ndarray.view(value, np.ndarray)),
                }
            except ValueError:  # object arrays cannot cross without pickles
                return {"t": "opaque", "kind": "object array"}
        if isinstance(value, np.generic) and type(value.item()) in SCALARS:
            return {"t": "scalar", "dtype": value.dtype.str, "v": value.item()}
        torch = sys.modules.get("torch")
        if torch is not None and isinstance(value, torch.Tensor):
            array = value.detach().cpu().numpy()
            return {
                "t": "tensor",
                "b": _blob(blobs, np.ndarray.view(array, np.ndarray)),
            }
        if type(value) in (tuple, list):
            kind = "tuple" if type(value) is tuple else "list"
            return {"t": kind, "v": [self.encode(v, blobs) for v in value]}
        if type(value) is dict and all(type(k) is str for k in value):
            return {
                "t": "dict",
                "v": {k: self.encode(v, blobs) for k, v in value.items()},
            }
        if callable(value):
            self.handles.append(value)
            py_func = getattr(
                value, "py_func", None
            )  # a Numba kernel's Python function
            names = getattr(getattr(py_func, "__code__", None), "co_names", None)
            return {
                "t": "callable",
                "h": len(self.handles) - 1,
                "kind": type(value).__name__,
                "name": str(getattr(value, "__name__", "")),
                "co_names": list(names) if names is not None else None,
            }
        return {"t": "opaque", "kind": type(value).__name__}

    def decode(self, item, blobs):
        t = item["t"]
        if t == "py":
            return item["v"]
        if t == "array":
            return _array(blobs[item["b"]])
        if t == "scalar":
            return np.dtype(item["dtype"]).type(item["v"])
        if t == "tensor":
            import torch

            return torch.from_numpy(_array(blobs[item["b"]]))
        if t in ("tuple", "list"):
            values = [self.decode(v, blobs) for v in item["v"]]
            return tuple(values) if t == "tuple" else values
        if t == "dict":
            return {k: self.decode(v, blobs) for k, v in item["v"].items()}
        if t == "callable":
            return remote_function(self, item)
        return Opaque(item["kind"])


def remote_function(channel, item):
    """A local stand-in for a function of the other process, named like it."""
    kind = type(item["kind"], (Remote,), {})  # type(f).__name__ reads as over there

    function = kind(channel, item["h"], item["name"])
    if item["co_names"] is not None:
        code = type("code", (), {"co_names": tuple(item["co_names"])})()
        function.py_func = type("py_func", (), {"__code__": code})()
    return function


class Remote:
    timeout = None  # seconds a call may take; set by the grader
    before_call = None  # the grader's hook: tell the other side what to block
    depth = 0

    def __init__(self, channel, handle, name):
        self.channel, self.handle, self.__name__ = channel, handle, name

    def __call__(self, *args, **kwargs):
        if Remote.before_call is not None and Remote.depth == 0:
            Remote.before_call()
        Remote.depth += 1
        try:
            return self.channel.call_remote(self.handle, args, kwargs, Remote.timeout)
        finally:
            Remote.depth -= 1

    def __repr__(self):
        return f"<{self.__name__} in the student's process>"


def _blob(blobs, array):
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    blobs.append(buffer.getvalue())
    return len(blobs) - 1


def _array(data):
    return np.load(io.BytesIO(data), allow_pickle=False)


def _now():
    return time.monotonic()
