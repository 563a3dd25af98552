"""Measure chapter 10's Triton kernels against PyTorch on a GPU (`make bench-gpu`).

For D = 768 ... 16384, in float32 and bfloat16, each tensor holding 2**27 elements
(512 MiB in float32), it times:

- the roof: a device-to-device copy of x (bytes read + written);
- LayerNorm and RMSNorm, forward and backward, three ways each: the Triton kernels of
  normbook/triton_norms.py, PyTorch's own kernels (F.layer_norm, F.rms_norm and their
  autograd backward) and torch.compile (Inductor writes its own Triton kernels).

Bandwidth counts the bytes of the rows read and written: x and y in the forward, x, dy
and dx in the backward (the parameters and row statistics are under 0.1 % of it).
PyTorch's caching allocator recycles device memory, so a fresh output costs nothing
extra on a GPU. Each timing is one CUDA-event interval around 10 back-to-back calls
(the launch queue stays full, so Python's overhead is hidden as in a training step),
repeated 15 times: median and the 20th-80th percentile spread.

The results go to a JSON file with the device, driver, versions, date and command;
`make sync` writes what chapter 10 shows of it into its data cell (measure/stored.py).
`--tiny` runs every row once on tiny shapes, on the CPU under the Triton interpreter
when no GPU is present: the tests use it to check the script, not to measure.
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")  # before triton is imported

import torch.nn.functional as F  # noqa: E402
import triton  # noqa: E402

from measure import provenance  # noqa: E402
from normbook import triton_norms as tn  # noqa: E402

SIZES = [768, 1024, 2048, 4096, 8192, 16384]
ELEMENTS = 2**27
EPS = {"layer_norm": 1e-5, "rms_norm": 1e-6}
# The backward's launch choices, swept in float32: (warps, w re-read for every row,
# programs per row). Splitting a row only pays where it does not fit one program.
WHOLE = [(k, reread, 1) for reread in (False, True) for k in (8, 16, 32)]
SPLITS = [(k, True, 2) for k in (8, 16, 32)]


def sweep(D):
    return WHOLE + (SPLITS if D >= 8192 else [])


def timer(fn, calls, repeats, device):
    """Seconds per call: the median and the 20th and 80th percentiles."""
    fn()  # warm up (and compile)
    times = []
    for _ in range(repeats):
        if device.type == "cuda":
            torch.cuda.synchronize()
            start, end = torch.cuda.Event(True), torch.cuda.Event(True)
            start.record()
            for _ in range(calls):
                fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) / 1e3 / calls)
        else:
            t = time.perf_counter()
            for _ in range(calls):
                fn()
            times.append((time.perf_counter() - t) / calls)
    q = torch.tensor(times, dtype=torch.float64).quantile(
        torch.tensor([0.5, 0.2, 0.8], dtype=torch.float64)
    )
    return [float(v) for v in q]


def normwise(a, b):
    a, b = a.double(), b.double()
    return float((a - b).norm() / b.norm())


def forward_fns(op, x, w, b):
    """op's forward three ways: {impl: fn} (each returns its output)."""
    D, eps = x.shape[1], EPS[op]
    if op == "layer_norm":
        fns = {
            "triton": lambda: tn.layer_norm_fwd(x, w, b, eps)[0],
            "torch": lambda: F.layer_norm(x, (D,), w, b, eps),
        }
        compiled = torch.compile(lambda x, w, b: F.layer_norm(x, (D,), w, b, eps))
        fns["compile"] = lambda: compiled(x, w, b)
    else:
        fns = {
            "triton": lambda: tn.rms_norm_fwd(x, w, eps)[0],
            "torch": lambda: F.rms_norm(x, (D,), w, eps),
        }
        compiled = torch.compile(lambda x, w: F.rms_norm(x, (D,), w, eps))
        fns["compile"] = lambda: compiled(x, w)
    return fns


def triton_backward(op, x, w, b, dy, launch=()):
    """The Triton backward of op as a function of nothing (the forward's statistics
    computed once); launch = (warps, w_in_loop, split) overrides the launcher's."""
    if op == "layer_norm":
        _, mean, rstd = tn.layer_norm_fwd(x, w, b, EPS[op])
        return lambda: tn.layer_norm_bwd(dy, x, w, mean, rstd, *launch)
    rstd = tn.rms_norm_fwd(x, w, EPS[op])[1]
    return lambda: tn.rms_norm_bwd(dy, x, w, rstd, *launch)


def backward_fns(op, x, w, b, dy):
    """op's backward three ways: {impl: fn} (each returns the gradients)."""
    D, eps = x.shape[1], EPS[op]
    fns = {"triton": triton_backward(op, x, w, b, dy)}
    if op == "layer_norm":
        forward = {
            "torch": lambda x, w, b: F.layer_norm(x, (D,), w, b, eps),
            "compile": torch.compile(lambda x, w, b: F.layer_norm(x, (D,), w, b, eps)),
        }
        params = (w, b)
    else:
        forward = {
            "torch": lambda x, w: F.rms_norm(x, (D,), w, eps),
            "compile": torch.compile(lambda x, w: F.rms_norm(x, (D,), w, eps)),
        }
        params = (w,)
    for impl, f in forward.items():
        leaves = [t.detach().requires_grad_() for t in (x, *params)]
        y = f(*leaves)
        fns[impl] = lambda y=y, leaves=leaves: torch.autograd.grad(
            y, leaves, dy, retain_graph=True
        )
    return fns


def dump(result):
    """The results as JSON text, one measurement (or compiled kernel) per line, for a
    readable diff."""
    lists = [k for k, v in result.items() if isinstance(v, list)]
    head = json.dumps({k: v for k, v in result.items() if k not in lists}, indent=1)
    parts = [head[:-2]]
    for key in lists:
        items = ",\n".join("  " + json.dumps(item) for item in result[key])
        parts.append(f' "{key}": [\n{items}\n ]')
    return ",\n".join(parts) + "\n}\n"


def environment(command):
    info = provenance.environment(command, triton=triton.__version__)
    if not torch.cuda.is_available():
        info["device"] = (
            "CPU (Triton interpreter): a check of the script, not a measurement"
        )
    return info


def compiled_kernels():
    """What the compiler made of each Triton kernel launched: its compile-time
    constants, warps, input type, registers per thread and the local memory per
    thread in 4-byte words (registers spilled), as the loaded binary reports them."""
    kernels = [
        tn._layer_norm_fwd,
        tn._rms_norm_fwd,
        tn._layer_norm_bwd,
        tn._rms_norm_bwd,
    ]
    found = []
    try:
        for fn in kernels:
            for cache in fn.device_caches.values():
                for k in cache[0].values():
                    k = k.result() if hasattr(k, "result") else k
                    k._init_handles()
                    names = {i[0]: v for i, v in k.src.constants.items()}
                    found.append(
                        {
                            "kernel": fn.__name__,
                            "dtype": k.src.signature["X"].removeprefix("*"),
                            "num_warps": k.metadata.num_warps,
                            **{fn.arg_names[i]: v for i, v in sorted(names.items())},
                            "registers": k.n_regs,
                            "spilled_words": k.n_spills,
                        }
                    )
    except Exception as error:  # a record of the registers is worth no lost run
        return {"error": repr(error), "found": found}
    return found


def launch_name(warps, reread, split):
    if split > 1:  # split rows always re-read w in the sweep: the name leaves it out
        return f"triton-{warps}w-split{split}"
    return f"triton-{warps}w" + ("-wloop" if reread else "")


def run(sizes, elements, calls, repeats, out, command, sweep=sweep, minutes=None):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    result = {"environment": environment(command), "elements": elements, "rows": []}
    deadline = time.monotonic() + 60 * minutes if minutes else None
    torch.manual_seed(0)
    for dtype in (torch.float32, torch.bfloat16):
        for D in sizes:
            if deadline and time.monotonic() > deadline:
                result["incomplete"] = f"stopped after {minutes} minutes"
                out.write_text(dump(result))
                return result
            N = elements // D
            x = torch.randn(N, D, device=device, dtype=dtype)
            dy = torch.randn_like(x)
            w = (1 + 0.1 * torch.randn(D, device=device)).to(dtype)
            b = (0.1 * torch.randn(D, device=device)).to(dtype)
            size = x.numel() * x.element_size()
            common = {"dtype": str(dtype).removeprefix("torch."), "D": D, "rows": N}

            def record(op, direction, impl, fn, nbytes, error=None):
                t = timer(fn, calls, repeats, device)
                row = dict(common, op=op, direction=direction, impl=impl)
                row.update(seconds=t, GBps=nbytes / t[0] / 1e9, error=error)
                result["rows"].append(row)
                print(
                    f"{common['dtype']:8} D={D:5} {op:10} {direction:8} {impl:8}"
                    f" {row['GBps']:7.0f} GB/s  ({t[1] * 1e6:.0f}-{t[2] * 1e6:.0f} us)",
                    flush=True,
                )
                out.write_text(dump(result))

            y = torch.empty_like(x)
            record("copy", "-", "torch", lambda: y.copy_(x), 2 * size)
            for op in ("layer_norm", "rms_norm"):
                fwd = forward_fns(op, x, w, b)
                reference = fwd["torch"]()
                for impl, fn in fwd.items():
                    err = normwise(fn(), reference)
                    record(op, "forward", impl, fn, 2 * size, err)
                bwd = backward_fns(op, x, w, b, dy)
                reference = bwd["torch"]()
                for impl, fn in bwd.items():
                    errs = [normwise(g, r) for g, r in zip(fn(), reference)]
                    record(op, "backward", impl, fn, 3 * size, max(errs))
                for launch in sweep(D) if dtype == torch.float32 else ():
                    fn = triton_backward(op, x, w, b, dy, launch)
                    errs = [normwise(g, r) for g, r in zip(fn(), reference)]
                    record(
                        op, "backward", launch_name(*launch), fn, 3 * size, max(errs)
                    )
                del fwd, bwd, reference
            torch._dynamo.reset()  # one set of compiled graphs at a time
    if device.type == "cuda":
        result["kernels"] = compiled_kernels()
        out.write_text(dump(result))
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--out", type=Path, required=True, help="the JSON file to write"
    )
    parser.add_argument("--tiny", action="store_true", help="check the script only")
    parser.add_argument(
        "--minutes", type=float, help="stop starting new sizes after this"
    )
    args = parser.parse_args()
    # The command as run, with the output's folder left out (it names the machine).
    argv = [Path(a).name if a == str(args.out) else a for a in sys.argv[1:]]
    command = "python -m measure.bench_gpu " + " ".join(argv)
    if args.tiny:
        run([48, 80], 48 * 80, 1, 1, args.out, command, lambda D: [(2, True, 2)])
    else:
        if not torch.cuda.is_available():
            raise SystemExit(
                "bench_gpu: no GPU here; --tiny checks the script on a CPU"
            )
        run(SIZES, ELEMENTS, 10, 15, args.out, command, minutes=args.minutes)


if __name__ == "__main__":
    main()
