"""Chapter 14's sweep: the class-conditional flow-matching transformer of
normbook/conditional.py with each way for the class to enter it, scored by a digit
classifier on generated samples. Rates are chosen on some seeds and compared on others:

  python -m measure.conditional_sweep --out SEL.json       rates: 5 rates x seeds 0-1
  python -m measure.conditional_sweep --best-from SEL.json --seeds 2-8 --out EVAL.json
      each variant at its rate of lowest mean test loss in SEL.json, on other seeds
  python -m measure.conditional_sweep --merge SEL.json EVAL.json --out FILE
  python -m measure.conditional_sweep --tiny --out FILE    (a check of the script)
  python -m measure.conditional_sweep --at-scale --out FILE    (a GPU's size)

`make conditional-sweep` runs the three steps (one core: about 35 minutes). --seeds and
--lrs run part of a step, for parts in separate processes, merged with --merge: every
run depends on its own seed alone. The yardstick classifier is trained once (seed 0) on
the 14 x 14 training digits; its accuracy on the test digits is stored. Per variant,
rate and seed the JSON holds the classifier's accuracy on generated samples of each
class, the flow-matching loss on 2,000 test digits (fixed noise and times), the seconds
it took, and, for the first seed of the rates' step, three generated samples per class
as strings of 196 hexadecimal digits (grey levels 0 to 15). `make sync` writes what
chapter 14 shows of it into its data cell (measure/stored.py).
"""

import argparse
import json
import sys
import time
from pathlib import Path

import torch

from measure import provenance
from measure.stored import best_rate
from normbook import conditional as C
from normbook.mnist import load_mnist

FULL = dict(
    steps=600, lrs=[0.0025, 0.005, 0.01, 0.02, 0.04], seeds=[0, 1], per_class=50
)
TINY = dict(steps=3, lrs=[1e-2], seeds=[0], per_class=3)
MODEL = dict(d=48, depth=2, heads=4, batch=64, sample_steps=20, classifier_steps=400)
# On a GPU (not yet run): DiT-S's width (384) and half its depth, ten times the steps
# at Adam rates nearer DiT's 1e-4, four times the samples per class.
AT_SCALE = dict(steps=6000, lrs=[1e-4, 2e-4, 4e-4, 8e-4], seeds=[0, 1], per_class=200)
MODEL_AT_SCALE = dict(
    d=384, depth=6, heads=6, batch=256, sample_steps=50, classifier_steps=400
)


def hex_image(x):
    """A sample in [-1, 1], (14, 14), as 196 hexadecimal grey levels."""
    levels = ((x.flatten() + 1) * 7.5).round().clamp(0, 15).int().tolist()
    return "".join(f"{v:x}" for v in levels)


@torch.no_grad()
def test_loss(model, images, labels, device="cpu"):
    g = torch.Generator().manual_seed(12345)
    return float(C.flow_loss(model, images.to(device), labels.to(device), g))


def run(size, model_size, out, command, tiny=False, rates=None, device="cpu"):
    """Train and score every variant at each rate of size["lrs"] (or at its own rate
    of `rates`) and seed; write the JSON after each run."""
    x_train, y_train, x_test, y_test = load_mnist(verbose=False)
    n_train = 2_000 if tiny else len(x_train)
    train = C.downsample(x_train[:n_train]), torch.tensor(y_train[:n_train]).long()
    test = C.downsample(x_test[:2000]), torch.tensor(y_test[:2000]).long()
    steps_c = 5 if tiny else model_size["classifier_steps"]
    classifier = C.train_classifier(train, 0, steps=steps_c)
    x_all, y_all = C.downsample(x_test), torch.tensor(y_test).long()
    result = {
        "environment": provenance.environment(command),
        "model": dict(model_size, **size),
        "classifier_test_accuracy": round(
            C.class_accuracy(classifier, x_all, y_all), 4
        ),
        "variants": {},
    }
    if rates:
        result["model"].update(lrs=sorted(set(rates.values())), rates=rates)
    size_kw = {k: model_size[k] for k in ("d", "depth", "heads")}
    for variant in C.VARIANTS:
        rows = []
        for lr in [rates[variant]] if rates else size["lrs"]:
            for seed in size["seeds"]:
                start = time.perf_counter()
                model, _ = C.train_flow(
                    variant, train, seed, lr, size["steps"], model_size["batch"],
                    device=device, **size_kw,
                )  # fmt: skip
                y = torch.arange(C.N_CLASSES).repeat_interleave(size["per_class"])
                samples = C.sample(model, y, seed, model_size["sample_steps"])
                row = {
                    "lr": lr,
                    "seed": seed,
                    "accuracy": round(C.class_accuracy(classifier, samples, y), 4),
                    "test_loss": round(test_loss(model, *test, device), 4),
                    "seconds": round(time.perf_counter() - start, 1),
                }
                if seed == size["seeds"][0] and not rates:
                    per = size["per_class"]
                    row["samples"] = [
                        hex_image(samples[k * per + j])
                        for k in range(C.N_CLASSES)
                        for j in range(min(3, per))
                    ]
                rows.append(row)
                print(
                    f"{variant:13s} lr {lr:g} seed {seed}: accuracy "
                    f"{row['accuracy']:.3f}, loss {row['test_loss']:.4f}, "
                    f"{row['seconds']:.0f} s",
                    flush=True,
                )
                result["variants"][variant] = rows
                out.write_text(json.dumps(result, indent=1) + "\n")
    return result


def merge(parts, command):
    """One sweep from parts: the rates' step (parts of its seeds or rates) and the
    comparison at each variant's own rate (parts of its seeds)."""
    grid = [p for p in parts if "rates" not in p["model"]]
    compared = [p for p in parts if "rates" in p["model"]]
    first = grid[0]
    same = ("lrs", "seeds", "rates")
    for part in parts[1:]:
        assert {k: v for k, v in part["model"].items() if k not in same} == {
            k: v for k, v in first["model"].items() if k not in same
        }, "the parts trained different models"
        assert part["classifier_test_accuracy"] == first["classifier_test_accuracy"]
    rows = {v: [r for p in parts for r in p["variants"][v]] for v in first["variants"]}
    for v, runs in rows.items():
        keys = [(r["lr"], r["seed"]) for r in runs]
        assert len(set(keys)) == len(keys), f"{v}: a run is in two parts"
    model = dict(
        first["model"],
        lrs=sorted({lr for p in grid for lr in p["model"]["lrs"]}),
        seeds=sorted({s for p in grid for s in p["model"]["seeds"]}),
    )
    if compared:
        rates = compared[0]["model"]["rates"]
        assert all(p["model"]["rates"] == rates for p in compared)
        chosen = {v: best_rate(rows[v], model["lrs"], model["seeds"]) for v in rows}
        assert rates == chosen, "compared at rates the rates' step did not choose"
        model.update(
            rates=rates,
            compared_seeds=sorted({s for p in compared for s in p["model"]["seeds"]}),
        )
    return {
        "environment": dict(
            provenance.environment(command),
            parts=[
                dict(p["environment"], seeds=p["model"]["seeds"], lrs=p["model"]["lrs"])
                for p in parts
            ],
        ),
        "model": model,
        "classifier_test_accuracy": first["classifier_test_accuracy"],
        "variants": rows,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="JSON file to write")
    parser.add_argument("--tiny", action="store_true", help="check the script only")
    parser.add_argument("--seeds", help="run only these seeds, e.g. 2-3")
    parser.add_argument("--lrs", help="run only these rates, e.g. 0.04,0.08")
    parser.add_argument("--merge", nargs="+", type=Path, help="parts to merge")
    parser.add_argument(
        "--best-from", type=Path, help="each variant at its best rate in this file"
    )
    parser.add_argument("--at-scale", action="store_true", help="a GPU's size")
    args = parser.parse_args()
    torch.set_num_threads(1)
    argv = [Path(a).name if a.endswith(".json") else a for a in sys.argv[1:]]
    command = "python -m measure.conditional_sweep " + " ".join(argv)
    if args.merge:
        parts = [json.loads(path.read_text()) for path in args.merge]
        args.out.write_text(json.dumps(merge(parts, command), indent=1) + "\n")
        return
    size = TINY if args.tiny else AT_SCALE if args.at_scale else FULL
    model_size = MODEL_AT_SCALE if args.at_scale else MODEL
    if args.seeds:
        low, _, high = args.seeds.partition("-")
        size = dict(size, seeds=list(range(int(low), int(high or low) + 1)))
    if args.lrs:
        size = dict(size, lrs=[float(lr) for lr in args.lrs.split(",")])
    rates = None
    if args.best_from:
        chosen = json.loads(args.best_from.read_text())
        lrs, seeds = chosen["model"]["lrs"], chosen["model"]["seeds"]
        rates = {v: best_rate(r, lrs, seeds) for v, r in chosen["variants"].items()}
    device = "cuda" if torch.cuda.is_available() else "cpu"
    run(size, model_size, args.out, command, args.tiny, rates, device)


if __name__ == "__main__":
    main()
