"""The student's side of scripts/grade.py: runs lecture and solution cells, answers calls.

Started by the grader as `python -I grade_runner.py` in a throw-away folder. It executes the
cells it is sent in one namespace, as a notebook kernel would, and calls the student's
functions when asked, with the exercise's forbidden names and autograd unavailable during
the call. The checks never run here: this process only returns plain data over the wire
(scripts/grade_channel.py). Whatever the student's code prints goes to output.log, never
onto the wire.
"""

import importlib
import os
import sys
import traceback
from pathlib import Path

from grade_channel import Channel, compile_cell


def without_magics(source):
    lines = source.splitlines()
    return "\n".join(
        "" if line.lstrip().startswith(("%", "!")) else line for line in lines
    )


class Blocked:
    """Makes what an exercise forbids unavailable for the length of a call, as the
    grade cells' _call_without does: notebook globals, a module's own functions
    ("torch.nn.init") or one function ("torch.nn.functional.layer_norm"), under any
    name the notebook holds them by, and autograd."""

    def __init__(self, namespace, forbidden, autograd):
        self.namespace, self.forbidden, self.autograd = namespace, forbidden, autograd

    def __enter__(self):
        hidden = {}
        for name in self.forbidden:
            if "." in name:
                try:
                    module = importlib.import_module(name)
                    for n, f in vars(module).items():
                        if callable(f) and getattr(f, "__module__", None) == name:
                            hidden[module, n] = f
                except ImportError:  # one function of a module
                    path, _, n = name.rpartition(".")
                    module = importlib.import_module(path)
                    hidden[module, n] = getattr(module, n)
            elif name in self.namespace:
                hidden[None, name] = self.namespace[name]
        torch = sys.modules.get("torch")
        if self.autograd and torch is not None:
            for owner, name in autograd_functions():
                hidden[owner, name] = getattr(owner, name)
        functions = list(hidden.values())
        self.saved = {
            k: v for k, v in self.namespace.items() if any(v is f for f in functions)
        }
        self.namespace.update(dict.fromkeys(self.saved))
        self.hidden = {k: v for k, v in hidden.items() if k[0] is not None}
        for owner, name in self.hidden:
            setattr(owner, name, _unavailable)

    def __exit__(self, *exc):
        self.namespace.update(self.saved)
        for (owner, name), function in self.hidden.items():
            setattr(owner, name, function)


def autograd_functions():
    """(owner, name) of every way to differentiate: the grade cells' own list."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from normbook.grading import _AUTOGRAD

    return _AUTOGRAD


def _unavailable(*_args, **_kwargs):
    raise RuntimeError("this exercise rules out autograd and the chapter's solution")


def main():
    # The wire keeps private copies of stdin and stdout; fds 0-2 go elsewhere.
    channel = Channel(os.dup(0), os.dup(1))
    log = os.open("output.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    os.dup2(log, 1)
    os.dup2(log, 2)
    namespace = {"__name__": "__main__"}
    blocked = {"forbidden": [], "autograd": False}
    serve_call = channel.serve_call

    def guarded_call(header, blobs):
        with Blocked(namespace, blocked["forbidden"], blocked["autograd"]):
            serve_call(header, blobs)

    channel.serve_call = guarded_call
    while True:
        header, blobs = channel.receive()
        op = header["op"]
        if op == "exec":
            try:
                code = compile_cell(header["source"], header["name"])
                exec(code, namespace)
                channel.send({"op": "done"})
            except BaseException:  # a failing cell is reported, the next one runs
                message = traceback.format_exc(limit=-3)[-2000:]
                channel.send({"op": "done", "error": message})
        elif op == "lookup":
            out, values = [], {}
            for name in header["names"]:
                if name in namespace:
                    values[name] = channel.encode(namespace[name], out)
            channel.send({"op": "values", "values": values}, out)
        elif op == "block":
            blocked.update(forbidden=header["forbidden"], autograd=header["autograd"])
            channel.send({"op": "done"})
        elif op == "call":
            channel.serve_call(header, blobs)
        elif op == "quit":
            return


if __name__ == "__main__":
    main()
