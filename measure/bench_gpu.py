"""Measure chapter 10's Triton kernels against their rivals on a GPU (`make bench-gpu`).

For D = 768 ... 16384, each activation tensor holding 2**27 elements (512 MiB in
float32, far beyond any GPU's L2 cache, so no cache flush is needed between calls), in
three precisions: float32, bfloat16, and mixed (bfloat16 activations and gradients with
float32 gains and biases, as mixed-precision training keeps them; statistics float32
everywhere), it times:

- the roofs, each the faster of PyTorch's kernel and a Triton loop of 16-byte vectors:
  a copy (one array read, one written: the forward's traffic) and an add (two read, one
  written: the backward's), `y.copy_(x)` and `torch.add(x, dy, out=dx)`;
- LayerNorm and RMSNorm, forward and backward: the Triton kernels of
  normbook/triton_norms.py ("triton"), PyTorch's own kernels and their autograd backward
  ("torch"), torch.compile in its default mode ("compile") and in the mode
  "max-autotune-no-cudagraphs" with static shapes ("compile-max"), and Liger-Kernel's
  LayerNorm and RMSNorm ("liger"), where it is installed.

Bandwidth counts the compulsory bytes of the activations: x and y in the forward, x, dy
and dx in the backward. Not counted: the parameters and row statistics (under 0.3 %),
and our backward's partial sums, which each row records as `uncounted_bytes` (written
and read once: 0.5-8 % at the stored sizes). Every time is kernel time: the summed
durations of the GPU kernels that one call launches, from torch.profiler, so that host
overhead (autograd's and compile's wrappers) is not counted; 10 calls a sample, 15
samples: median and 20th-80th percentile spread. `seconds_wall` beside it is one
CUDA-event interval around the same 10 back-to-back calls, for comparison.

The results go to a JSON file with the device, driver, versions, date and command;
`make sync` writes what chapter 10 shows of it into its data cell (measure/stored.py).
`--tiny` runs every row once on a tiny shape, on the CPU under the Triton interpreter
when no GPU is present (without Liger, whose kernels the interpreter cannot run): the
tests use it to check the script, not to measure. `--sizes`, `--dtypes` and `--impls`
choose a part of the run. For counters of one kernel, run the
same script under Nsight Compute, e.g. `ncu --kernel-name regex:_layer_norm_bwd
--launch-count 1 --metrics dram__bytes_read.sum,dram__bytes_write.sum,
lts__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active
python -m measure.bench_gpu --sizes 16384 --dtypes float32 --impls triton
--out ncu.json` (the metrics one comma-separated word).
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

import torch
from torch.autograd import DeviceType
from torch.profiler import ProfilerActivity, profile

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")  # before triton is imported

import torch.nn.functional as F  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

from measure import provenance  # noqa: E402
from normbook import triton_norms as tn  # noqa: E402

SIZES = [768, 1024, 2048, 4096, 8192, 16384]
ELEMENTS = 2**27
EPS = {"layer_norm": 1e-5, "rms_norm": 1e-6}
# (activations and their gradients, gains and biases)
DTYPES = {
    "float32": (torch.float32, torch.float32),
    "bfloat16": (torch.bfloat16, torch.bfloat16),
    "mixed": (torch.bfloat16, torch.float32),
}
IMPLS = ["triton", "torch", "compile", "compile-max", "liger"]
# The backward's launch choices, swept in float32 and bfloat16: (warps, w re-read for
# every row, programs per row). Splitting a row only pays where it does not fit one
# program.
WHOLE = [(k, reread, 1) for reread in (False, True) for k in (8, 16, 32)]
SPLITS = [(k, True, 2) for k in (8, 16, 32)]


def sweep(D):
    return WHOLE + (SPLITS if D >= 8192 else [])


@triton.jit
def _stream(A, B, C, n, ADD: tl.constexpr, BLOCK: tl.constexpr):
    # C = A (+ B), BLOCK elements a program: the roofs' Triton loop.
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    live = offs < n
    a = tl.load(A + offs, mask=live, other=0.0)
    if ADD:
        a += tl.load(B + offs, mask=live, other=0.0)
    tl.store(C + offs, a, mask=live)


def stream(a, b, c, add):
    n = a.numel()
    _stream[(triton.cdiv(n, 4096),)](a, b, c, n, ADD=add, BLOCK=4096, num_warps=8)


def quantiles(times):
    q = torch.tensor(times, dtype=torch.float64).quantile(
        torch.tensor([0.5, 0.2, 0.8], dtype=torch.float64)
    )
    return [float(v) for v in q]


def timer(fn, calls, repeats, device):
    """Seconds per call, [median, 20th, 80th percentile], twice: the GPU kernels'
    summed durations (torch.profiler), and the wall time of `calls` back-to-back calls
    between two CUDA events. On a CPU (the interpreter) both are wall times."""
    fn()  # warm up (and compile)
    kernel, wall = [], []
    for _ in range(repeats):
        if device.type == "cuda":
            torch.cuda.synchronize()
            start, end = torch.cuda.Event(True), torch.cuda.Event(True)
            start.record()
            for _ in range(calls):
                fn()
            end.record()
            end.synchronize()
            wall.append(start.elapsed_time(end) / 1e3 / calls)
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(calls):
                    fn()
                torch.cuda.synchronize()
            busy = sum(
                e.time_range.elapsed_us()
                for e in prof.events()
                if e.device_type == DeviceType.CUDA
            )
            kernel.append(busy / 1e6 / calls)
        else:
            t = time.perf_counter()
            for _ in range(calls):
                fn()
            wall.append((time.perf_counter() - t) / calls)
            kernel.append(wall[-1])
    return quantiles(kernel), quantiles(wall)


def normwise(a, b):
    a, b = a.double(), b.double()
    return float((a - b).norm() / b.norm())


def liger():
    """Liger-Kernel's autograd functions (LayerNorm, RMSNorm), or None where it is not
    installed or there is no GPU (its kernels do not run under the interpreter)."""
    if not torch.cuda.is_available():
        return None
    try:
        from liger_kernel.ops.layer_norm import LigerLayerNormFunction
        from liger_kernel.ops.rms_norm import LigerRMSNormFunction
    except ImportError:
        return None
    return LigerLayerNormFunction, LigerRMSNormFunction


def layer_fns(op, D, impls):
    """op as a function of (x, *params) for each of impls: {impl: f}."""
    eps = EPS[op]
    if op == "layer_norm":
        f = lambda x, w, b: F.layer_norm(x, (D,), w, b, eps)  # noqa: E731
    else:
        f = lambda x, w: F.rms_norm(x, (D,), w, eps)  # noqa: E731
    fns = {"torch": f}
    if "compile" in impls:
        fns["compile"] = torch.compile(f)
    if "compile-max" in impls:
        fns["compile-max"] = torch.compile(
            f, mode="max-autotune-no-cudagraphs", dynamic=False
        )
    if "liger" in impls and liger():
        ln, rms = liger()
        if op == "layer_norm":
            fns["liger"] = lambda x, w, b: ln.apply(x, w, b, eps)
        else:  # dy kept (in_place=False): every call sees the same gradient
            fns["liger"] = lambda x, w: rms.apply(x, w, eps, 0.0, "llama", False)
    return {impl: fns[impl] for impl in impls if impl in fns}


def forward_fns(op, x, w, b, impls):
    """op's forward, each way: {impl: fn} (each returns its output)."""
    D, eps = x.shape[1], EPS[op]
    params = (w, b) if op == "layer_norm" else (w,)
    fns = {}
    if "triton" in impls:
        if op == "layer_norm":
            fns["triton"] = lambda: tn.layer_norm_fwd(x, w, b, eps)[0]
        else:
            fns["triton"] = lambda: tn.rms_norm_fwd(x, w, eps)[0]
    for impl, f in layer_fns(op, D, impls).items():
        fns[impl] = lambda f=f: f(x, *params)
    return fns


def triton_backward(op, x, w, b, dy, launch=()):
    """The Triton backward of op as a function of nothing (the forward's statistics
    computed once); launch = (warps, w_in_loop, split) overrides the launcher's."""
    if op == "layer_norm":
        _, mean, rstd = tn.layer_norm_fwd(x, w, b, EPS[op])
        return lambda: tn.layer_norm_bwd(dy, x, w, mean, rstd, *launch)
    rstd = tn.rms_norm_fwd(x, w, EPS[op])[1]
    return lambda: tn.rms_norm_bwd(dy, x, w, rstd, *launch)


def backward_fns(op, x, w, b, dy, impls):
    """op's backward, each way: {impl: fn} (each returns the gradients)."""
    params = (w, b) if op == "layer_norm" else (w,)
    fns = {}
    if "triton" in impls:
        fns["triton"] = triton_backward(op, x, w, b, dy)
    for impl, f in layer_fns(op, x.shape[1], impls).items():
        leaves = [t.detach().requires_grad_() for t in (x, *params)]
        y = f(*leaves)
        fns[impl] = lambda y=y, leaves=leaves: torch.autograd.grad(
            y, leaves, dy, retain_graph=True
        )
    return fns


def partial_bytes(op, x):
    """Bytes of our backward's partial sums, written once and read once."""
    arrays = 2 if op == "layer_norm" else 1
    return 2 * arrays * tn._programs(x) * x.shape[1] * 4


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


def run(
    sizes, elements, calls, repeats, out, command, sweep=sweep, minutes=None,
    dtypes=tuple(DTYPES), impls=tuple(IMPLS),
):  # fmt: skip
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    result = {"environment": environment(command), "elements": elements, "rows": []}
    if "liger" in impls and not liger():
        result["not_run"] = ["liger: not installed, or no GPU (no interpreter run)"]
    deadline = time.monotonic() + 60 * minutes if minutes else None
    torch.manual_seed(0)
    for name in dtypes:
        dtype, param_dtype = DTYPES[name]
        for D in sizes:
            if deadline and time.monotonic() > deadline:
                result["incomplete"] = f"stopped after {minutes} minutes"
                out.write_text(dump(result))
                return result
            N = elements // D
            x = torch.randn(N, D, device=device, dtype=dtype)
            dy = torch.randn_like(x)
            w = (1 + 0.1 * torch.randn(D, device=device)).to(param_dtype)
            b = (0.1 * torch.randn(D, device=device)).to(param_dtype)
            size = x.numel() * x.element_size()
            common = {"dtype": name, "D": D, "rows": N}

            def record(op, direction, impl, fn, nbytes, error=None, **extra):
                t, wall = timer(fn, calls, repeats, device)
                row = dict(common, op=op, direction=direction, impl=impl)
                row.update(seconds=t, GBps=nbytes / t[0] / 1e9, error=error)
                row.update(seconds_wall=wall, **extra)
                result["rows"].append(row)
                print(
                    f"{name:8} D={D:5} {op:10} {direction:8} {impl:11}"
                    f" {row['GBps']:7.0f} GB/s  ({t[1] * 1e6:.0f}-{t[2] * 1e6:.0f} us,"
                    f" wall {wall[0] * 1e6:.0f} us)",
                    flush=True,
                )
                out.write_text(dump(result))

            y, dx = torch.empty_like(x), torch.empty_like(x)
            record("copy", "-", "torch", lambda: y.copy_(x), 2 * size)
            record("copy", "-", "triton", lambda: stream(x, x, y, False), 2 * size)
            add = lambda: torch.add(x, dy, out=dx)  # noqa: E731
            record("add", "-", "torch", add, 3 * size)
            record("add", "-", "triton", lambda: stream(x, dy, dx, True), 3 * size)
            for op in ("layer_norm", "rms_norm"):
                fwd = forward_fns(op, x, w, b, impls)
                reference = fwd["torch"]()
                for impl, fn in fwd.items():
                    err = normwise(fn(), reference)
                    record(op, "forward", impl, fn, 2 * size, err)
                bwd = backward_fns(op, x, w, b, dy, impls)
                reference = bwd["torch"]()
                extra = {"uncounted_bytes": partial_bytes(op, x)}
                for impl, fn in bwd.items():
                    errs = [normwise(g, r) for g, r in zip(fn(), reference)]
                    kept = extra if impl == "triton" else {}
                    record(op, "backward", impl, fn, 3 * size, max(errs), **kept)
                for launch in sweep(D) if name != "mixed" and "triton" in impls else ():
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
    parser.add_argument("--sizes", help="row lengths, comma-separated (default: all)")
    parser.add_argument("--dtypes", help=f"of {', '.join(DTYPES)} (default: all)")
    parser.add_argument("--impls", help=f"of {', '.join(IMPLS)} (default: all)")
    args = parser.parse_args()
    # The command as run, with the output's folder left out (it names the machine).
    argv = [Path(a).name if a == str(args.out) else a for a in sys.argv[1:]]
    command = "python -m measure.bench_gpu " + " ".join(argv)
    sizes = [int(d) for d in args.sizes.split(",")] if args.sizes else SIZES
    dtypes = args.dtypes.split(",") if args.dtypes else list(DTYPES)
    impls = args.impls.split(",") if args.impls else list(IMPLS)
    for value, known in [*((d, DTYPES) for d in dtypes), *((i, IMPLS) for i in impls)]:
        if value not in known:
            raise SystemExit(f"bench_gpu: unknown {value!r}; choose from {list(known)}")
    impls = ["torch", *(i for i in impls if i != "torch")]  # the reference
    if args.tiny:
        tiny = [i for i in impls if i != "liger"]
        run([80], 2 * 80, 1, 1, args.out, command, lambda D: [(2, True, 2)],
            dtypes=dtypes, impls=tiny)  # fmt: skip
    else:
        if not torch.cuda.is_available():
            raise SystemExit(
                "bench_gpu: no GPU here; --tiny checks the script on a CPU"
            )
        run(sizes, ELEMENTS, 10, 15, args.out, command,
            minutes=args.minutes, dtypes=dtypes, impls=impls)  # fmt: skip


if __name__ == "__main__":
    main()
