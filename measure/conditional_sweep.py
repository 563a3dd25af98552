"""Chapter 14's sweep: the class-conditional flow-matching transformer of
normbook/conditional.py with each way for the class to enter it, at three learning
rates over several seeds, scored by a digit classifier on generated samples.

  python -m measure.conditional_sweep --out FILE              (one core: ~30 minutes)
  python -m measure.conditional_sweep --seeds 2-3 --out FILE  (other seeds of it)
  python -m measure.conditional_sweep --merge A B --out FILE
  python -m measure.conditional_sweep --tiny --out FILE       (a check of the script)

Every run depends on its own seed alone, so parts can run in separate processes and be
merged. The yardstick classifier is trained once (seed 0) on the 14 x 14 training
digits; its accuracy on the test digits is stored. Per variant, rate and seed the JSON
holds the classifier's accuracy on 50 generated samples of each class, the flow-matching
loss on 2,000 test digits (fixed noise and times), the seconds it took, and, for the
first seed, three generated samples per class as strings of 196 hexadecimal digits
(grey levels 0 to 15). `make sync` writes what chapter 14 shows of it into its data
cell (measure/stored.py).
"""

import argparse
import json
import sys
import time
from pathlib import Path

import torch

from measure import provenance
from normbook import conditional as C
from normbook.mnist import load_mnist

FULL = dict(steps=600, lrs=[5e-3, 1e-2, 2e-2], seeds=[0, 1], per_class=50)
TINY = dict(steps=3, lrs=[1e-2], seeds=[0], per_class=3)
MODEL = dict(d=48, depth=2, heads=4, batch=64, sample_steps=20, classifier_steps=400)


def hex_image(x):
    """A sample in [-1, 1], (14, 14), as 196 hexadecimal grey levels."""
    levels = ((x.flatten() + 1) * 7.5).round().clamp(0, 15).int().tolist()
    return "".join(f"{v:x}" for v in levels)


@torch.no_grad()
def test_loss(model, images, labels):
    g = torch.Generator().manual_seed(12345)
    return float(C.flow_loss(model, images, labels, g))


def run(size, out, command, tiny=False):
    x_train, y_train, x_test, y_test = load_mnist(verbose=False)
    n_train = 2_000 if tiny else len(x_train)
    train = C.downsample(x_train[:n_train]), torch.tensor(y_train[:n_train]).long()
    test = C.downsample(x_test[:2000]), torch.tensor(y_test[:2000]).long()
    steps_c = 5 if tiny else MODEL["classifier_steps"]
    classifier = C.train_classifier(train, 0, steps=steps_c)
    x_all, y_all = C.downsample(x_test), torch.tensor(y_test).long()
    result = {
        "environment": provenance.environment(command),
        "model": dict(MODEL, **size),
        "classifier_test_accuracy": round(
            C.class_accuracy(classifier, x_all, y_all), 4
        ),
        "variants": {},
    }
    size_kw = {k: MODEL[k] for k in ("d", "depth", "heads")}
    for variant in C.VARIANTS:
        rows = []
        for lr in size["lrs"]:
            for seed in size["seeds"]:
                start = time.perf_counter()
                model, _ = C.train_flow(
                    variant, train, seed, lr, size["steps"], MODEL["batch"], **size_kw
                )
                y = torch.arange(C.N_CLASSES).repeat_interleave(size["per_class"])
                samples = C.sample(model, y, seed, MODEL["sample_steps"])
                row = {
                    "lr": lr,
                    "seed": seed,
                    "accuracy": round(C.class_accuracy(classifier, samples, y), 4),
                    "test_loss": round(test_loss(model, *test), 4),
                    "seconds": round(time.perf_counter() - start, 1),
                }
                if seed == size["seeds"][0]:
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
    """One sweep from parts that ran other seeds of the same sweep."""
    first = parts[0]
    for part in parts[1:]:
        same = {k: v for k, v in part["model"].items() if k != "seeds"}
        assert same == {k: v for k, v in first["model"].items() if k != "seeds"}
        assert part["classifier_test_accuracy"] == first["classifier_test_accuracy"]
    seeds = sorted(s for part in parts for s in part["model"]["seeds"])
    assert len(set(seeds)) == len(seeds), "a seed is in two parts"
    return {
        "environment": dict(
            provenance.environment(command),
            parts=[dict(p["environment"], seeds=p["model"]["seeds"]) for p in parts],
        ),
        "model": dict(first["model"], seeds=seeds),
        "classifier_test_accuracy": first["classifier_test_accuracy"],
        "variants": {
            v: [row for p in parts for row in p["variants"][v]]
            for v in first["variants"]
        },
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="JSON file to write")
    parser.add_argument("--tiny", action="store_true", help="check the script only")
    parser.add_argument("--seeds", help="run only these seeds, e.g. 2-3")
    parser.add_argument("--merge", nargs="+", type=Path, help="parts to merge")
    args = parser.parse_args()
    torch.set_num_threads(1)
    argv = [Path(a).name if a.endswith(".json") else a for a in sys.argv[1:]]
    command = "python -m measure.conditional_sweep " + " ".join(argv)
    if args.merge:
        parts = [json.loads(path.read_text()) for path in args.merge]
        args.out.write_text(json.dumps(merge(parts, command), indent=1) + "\n")
        return
    size = TINY if args.tiny else FULL
    if args.seeds:
        low, _, high = args.seeds.partition("-")
        size = dict(size, seeds=list(range(int(low), int(high or low) + 1)))
    run(size, args.out, command, tiny=args.tiny)


if __name__ == "__main__":
    main()
