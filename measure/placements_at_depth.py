"""Chapter 13's deep sweep: chapter 11's five placements in chapter 08's GPT at 12
blocks, at six peak learning rates over nine seeds, on the chapter's text.

  python -m measure.placements_at_depth --out FILE              (one core: ~90 minutes)
  python -m measure.placements_at_depth --seeds 3-5 --out FILE  (three of the seeds)
  python -m measure.placements_at_depth --lrs 0.01 --out FILE    (one of the rates)
  python -m measure.placements_at_depth --merge A B C --out FILE
  python -m measure.placements_at_depth --tiny --out FILE       (a check of the script)

Every model depends on its own seed alone, so the seeds can run in separate processes,
one core each, and be merged: the merged file lists each part's environment and seeds.
Each placement trains its models at once with normbook/gpt.py's train: width 32,
four heads, 12 blocks, 400 steps of 16 windows of 32 characters, 40 of them warm-up.
The JSON holds, per placement and model, the validation loss every 25 steps, each
block's gradient norm averaged over the last 50 steps, each block's largest attention
logit at the end, and the RMS of the residual stream entering each block (and leaving
the last) at the start and at the end; with the environment, the text's checksum and
its yardsticks.
`make sync` writes what chapter 13 shows of it into its data cell (measure/stored.py).
"""

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import torch

from measure import provenance
from normbook.gpt import Corpus, doc_text, train, yardsticks

PLACEMENTS = {  # name: (placement, depth_scaled)
    "post": ("post", False),
    "pre": ("pre", False),
    "peri": ("peri", False),
    "reordered": ("reordered", False),
    "LN scaling": ("pre", True),
}
FULL = dict(
    n_layers=12, steps=400, warmup=40, lrs=[1e-3, 3e-3, 1e-2, 3e-2, 1e-1, 3e-1],
    seeds=list(range(9)),
)  # fmt: skip
TINY = dict(n_layers=3, steps=4, warmup=1, lrs=[1e-2], seeds=[0, 1])
MODEL = dict(d=32, n_heads=4, batch=16, context=32)  # chapter 08's, at every depth


def run(size, out, command):
    text = doc_text()
    corpus = Corpus.of(text)
    result = {
        "environment": provenance.environment(command),
        "text_sha256": hashlib.sha256(text.encode()).hexdigest(),
        "yardsticks": yardsticks(corpus, MODEL["context"]),  # on train()'s windows
        "model": dict(MODEL, **size),
        "placements": {},
    }
    steps, last = size["steps"], min(50, size["steps"])
    for name, (placement, scaled) in PLACEMENTS.items():
        start = time.perf_counter()
        _, runs, record = train(
            corpus, placement, "ln", size["lrs"], [size["warmup"]], size["seeds"],
            steps, every=max(1, steps // 16), n_layers=size["n_layers"],
            depth_scaled=scaled, **MODEL,
        )  # fmt: skip
        result["placements"][name] = {
            "seconds": round(time.perf_counter() - start, 1),
            "steps": record["step"].tolist(),
            "runs": [[lr, seed] for lr, _, seed in runs],
            "val": [[round(float(v), 4) for v in row] for row in record["val"].T],
            "grad": [  # (model, block): mean over the last steps
                [round(float(v), 5) for v in row]
                for row in record["grad"][-last:].mean(0)
            ],
            "logit": [[round(float(v), 2) for v in row] for row in record["logit"][-1]],
            "rms": [  # (model, [start, end], stream)
                [[round(float(v), 4) for v in rms[i]] for rms in record["rms"][[0, -1]]]
                for i in range(len(runs))
            ],
        }
        finals = " ".join(f"{float(v):.2f}" for v in record["val"][-1])
        print(f"{name:11s} {time.perf_counter() - start:6.1f} s: {finals}", flush=True)
        out.write_text(json.dumps(result, indent=1) + "\n")
    return result


def merge(parts, command):
    """One sweep from parts that ran other seeds of the same sweep."""
    first = parts[0]
    for part in parts[1:]:
        for key in ["text_sha256", "yardsticks"]:
            assert part[key] == first[key], f"the parts differ in {key}"
        same = {k: v for k, v in part["model"].items() if k != "seeds"}
        assert same == {k: v for k, v in first["model"].items() if k != "seeds"}
    seeds = sorted(s for part in parts for s in part["model"]["seeds"])
    assert len(set(seeds)) == len(seeds), "a seed is in two parts"
    merged = {
        "environment": dict(
            provenance.environment(command),
            parts=[dict(p["environment"], seeds=p["model"]["seeds"]) for p in parts],
        ),
        "text_sha256": first["text_sha256"],
        "yardsticks": first["yardsticks"],
        "model": dict(first["model"], seeds=seeds),
        "placements": {},
    }
    for name in first["placements"]:
        runs = [p["placements"][name] for p in parts]
        merged["placements"][name] = {
            "seconds": round(sum(r["seconds"] for r in runs), 1),
            "steps": runs[0]["steps"],
            **{
                k: [row for r in runs for row in r[k]]
                for k in ["runs", "val", "grad", "logit", "rms"]
            },
        }
    return merged


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="JSON file to write")
    parser.add_argument("--tiny", action="store_true", help="check the script only")
    parser.add_argument("--seeds", help="run only these seeds of the sweep, e.g. 3-5")
    parser.add_argument("--lrs", help="run only these rates of the sweep, e.g. 0.01")
    parser.add_argument("--merge", nargs="+", type=Path, help="parts to merge")
    args = parser.parse_args()
    torch.set_num_threads(1)
    argv = [Path(a).name if a.endswith(".json") else a for a in sys.argv[1:]]
    command = "python -m measure.placements_at_depth " + " ".join(argv)
    if args.merge:
        parts = [json.loads(path.read_text()) for path in args.merge]
        args.out.write_text(json.dumps(merge(parts, command), indent=1) + "\n")
        return
    size = TINY if args.tiny else FULL
    if args.seeds:
        low, _, high = args.seeds.partition("-")
        seeds = list(range(int(low), int(high or low) + 1))
        assert set(seeds) <= set(size["seeds"]), f"the sweep's seeds: {size['seeds']}"
        size = dict(size, seeds=seeds)
    if args.lrs:
        lrs = [float(lr) for lr in args.lrs.split(",")]
        assert set(lrs) <= set(size["lrs"]), f"the sweep's rates: {size['lrs']}"
        size = dict(size, lrs=lrs)
    run(size, args.out, command)


if __name__ == "__main__":
    main()
