"""The student's side of grading/grade.py: runs lecture and solution cells, answers calls.

Started by the grader as `python -s -P -m grading.runner --limits JSON [--uid N]`, in a
sandbox of its own (grading/sandbox.py) or, unsafe, in a throw-away folder. Before any
of the student's code, it lowers its resource limits for good and, given --uid (the
grader runs as root), becomes that user, which drops every privilege. It executes the
cells it is sent in one namespace, as a notebook kernel would, and calls the student's
functions when asked, with the exercise's forbidden names and autograd unavailable during
the call. The checks never run here: this process only returns plain data over the wire
(grading/channel.py). Whatever the student's code prints goes to output.log, never
onto the wire.
"""

import argparse
import json
import os
import resource
import signal
import traceback

from grading.channel import Channel, compile_cell


class Blocked:
    """Makes what an exercise forbids unavailable for the length of a call, with the
    harness's own _hide and _restore (normbook/grading.py)."""

    def __init__(self, namespace, forbidden, autograd):
        self.namespace, self.forbidden, self.autograd = namespace, forbidden, autograd
        self.state = None

    def __enter__(self):
        if self.forbidden or self.autograd:
            from normbook.grading import _hide  # imports torch: only when needed

            self.state = _hide(self.namespace, self.forbidden, self.autograd)

    def __exit__(self, *exc):
        if self.state is not None:
            from normbook.grading import _restore

            _restore(self.namespace, self.state)


def confine(limits, uid):
    """Lower this process's limits ({name: value}, RLIMIT_NAME) so that neither it nor
    its children can raise them, then, given a uid, become that user and group."""
    for name, value in limits.items():
        resource.setrlimit(getattr(resource, f"RLIMIT_{name.upper()}"), (value, value))
    # A file past the size limit fails the write, rather than ending the process.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    if uid is not None:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--limits", type=json.loads, default={})
    parser.add_argument("--uid", type=int)
    args = parser.parse_args(argv)
    confine(args.limits, args.uid)
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
