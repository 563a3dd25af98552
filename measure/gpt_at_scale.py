"""Chapter 08's GPT at larger sizes: placement x peak learning rate x warm-up x seed.

  python -m measure.gpt_at_scale --out FILE [--sizes chapter,medium,large] [--minutes M]
  python -m measure.gpt_at_scale --out FILE --tiny     (a check of the script, on a CPU)

The model, the optimizer, the schedule and the training loop are normbook/gpt.py's:
chapter 08's, with a warm-up that reaches its peak; only the sizes and the text change.
The text is the source code of Python's standard library (tests and a few large
generated folders left out), about 8 MB where the chapter's docstrings are 0.1 MB, so
that the larger models see each character about once. Its split is the chapter's (every
tenth chunk of 1,000 characters is validation text), and it is read against the same
yardsticks: the uniform guess, and interpolated unigram, bigram and trigram counts,
scored for each size on the validation windows its models are scored on.

Every size trains post-LN, pre-LN and pre-RMSNorm with a quarter of the steps as warm-up
or none (as the chapter: 50 of 200), at three peak rates, three seeds each, all 18
models of a placement at once. Matrix products use TensorFloat-32 on a GPU, as training
code usually does. The results (validation curves from the initial loss on, seconds per
placement) go to a JSON file with the device, versions, date and command, for chapter
08 to plot: `make sync` writes what the chapter shows of it into its data cell
(measure/stored.py).
"""

import argparse
import hashlib
import json
import sys
import sysconfig
import time
from pathlib import Path

import torch

from measure import provenance
from normbook.gpt import Corpus, train, yardsticks

PLACEMENTS = {
    "post-LN": ("post", "ln"),
    "pre-LN": ("pre", "ln"),
    "pre-RMSNorm": ("pre", "rms"),
}
SEEDS = [0, 1, 2]
VAL_WINDOWS = 256  # the windows every model and its yardsticks are scored on
MODEL = ("d", "n_heads", "n_layers")
SIZES = {  # the chapter's size first, on this text: the bridge to the chapter's runs
    "chapter": dict(
        d=32, n_heads=4, n_layers=4, context=32, batch=16, steps=200,
        lrs=[3e-3, 1e-2, 3e-2],
    ),
    "medium": dict(
        d=128, n_heads=4, n_layers=6, context=64, batch=32, steps=1000,
        lrs=[3e-3, 1e-2, 3e-2],
    ),
    "large": dict(
        d=256, n_heads=8, n_layers=8, context=128, batch=32, steps=1500,
        lrs=[1e-3, 3e-3, 1e-2],
    ),
}  # fmt: skip
# Depth at the medium size: where does each placement stop training without warm-up?
SIZES.update({f"medium-{n}": dict(SIZES["medium"], n_layers=n) for n in (2, 4, 16)})
TINY = {
    "tiny": dict(
        d=16, n_heads=2, n_layers=2, context=16, batch=4, steps=6, lrs=[1e-2, 3e-2]
    )
}
# Folders of the standard library left out of the text: tests, and code that is mostly
# data or generated.
SKIP = {"test", "tests", "idlelib", "lib2to3", "turtledemo", "ensurepip", "encodings"}


def stdlib_text():
    """The standard library's .py files, in sorted order, as ASCII text."""
    root = Path(sysconfig.get_paths()["stdlib"])
    parts = []
    for path in sorted(root.rglob("*.py")):
        folders = path.relative_to(root).parts[:-1]
        if SKIP.intersection(folders) or "-packages" in str(path):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        parts.append(text.encode("ascii", "replace").decode())  # one symbol set
    return "\n".join(parts)


def run(sizes, out, command, device, text, minutes=None):
    corpus = Corpus.of(text)
    result = {
        "environment": provenance.environment(command),
        "tf32": device == "cuda",
        "corpus": {
            "what": "Python standard library source (measure/gpt_at_scale.py)",
            "characters": len(text),
            "symbols": corpus.V,
            "sha256": hashlib.sha256(text.encode()).hexdigest(),
            "train": len(corpus.train),
            "val": len(corpus.val),
        },
        "seeds": SEEDS,
        "runs": [],
    }
    print(json.dumps(result["corpus"]), flush=True)
    deadline = time.monotonic() + 60 * minutes if minutes else None
    for name, size in sizes.items():
        steps, warmups = size["steps"], [0, size["steps"] // 4]
        yard = yardsticks(corpus, size["context"], VAL_WINDOWS)
        for placement, (where, kind) in PLACEMENTS.items():
            if deadline and time.monotonic() > deadline:
                result["incomplete"] = f"stopped after {minutes} minutes"
                out.write_text(json.dumps(result, indent=1) + "\n")
                return result
            if device == "cuda":
                torch.cuda.synchronize()
            start = time.perf_counter()
            _, runs, record = train(
                corpus, where, kind, size["lrs"], warmups, SEEDS, steps,
                batch=size["batch"], context=size["context"], every=max(1, steps // 20),
                val_windows=VAL_WINDOWS, device=device, **{k: size[k] for k in MODEL},
            )  # fmt: skip
            seconds = time.perf_counter() - start
            val = record["val"]  # (checkpoint, run)
            result["runs"].append(
                {
                    "size": name,
                    **size,
                    "placement": placement,
                    "warmups": warmups,
                    "yardsticks": yard,
                    "seconds": round(seconds, 1),
                    "steps_recorded": record["step"].tolist(),
                    "runs": [list(r) for r in runs],  # (lr, warm-up, seed) per model
                    "val": [[round(float(v), 4) for v in row] for row in val.T],
                }
            )
            finals = " ".join(f"{float(v):.2f}" for v in val[-1])
            print(
                f"{name:8s} {placement:12s} {len(runs)} models {seconds:6.1f} s: "
                f"{finals}",
                flush=True,
            )
            out.write_text(json.dumps(result, indent=1) + "\n")
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="JSON file to write")
    parser.add_argument(
        "--sizes", default="chapter,medium,large", help="which sizes, in order"
    )
    parser.add_argument("--minutes", type=float, help="start no training after this")
    parser.add_argument("--tiny", action="store_true", help="check the script only")
    args = parser.parse_args()
    argv = [Path(a).name if a == str(args.out) else a for a in sys.argv[1:]]
    command = "python -m measure.gpt_at_scale " + " ".join(argv)
    if args.tiny:  # a slice of the text, on the CPU: seconds
        run(TINY, args.out, command, "cpu", stdlib_text()[:200_000])
        return
    unknown = set(args.sizes.split(",")) - set(SIZES)
    if unknown:
        raise SystemExit(f"gpt_at_scale: no size {', '.join(sorted(unknown))}")
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.backends.cuda.matmul.allow_tf32 = True
    sizes = {k: SIZES[k] for k in args.sizes.split(",")}
    run(sizes, args.out, command, device, stdlib_text(), args.minutes)


if __name__ == "__main__":
    main()
