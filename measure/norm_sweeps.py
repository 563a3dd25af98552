"""The sweeps behind chapters 12 and 13: over rates, seeds, data budgets and widths.

  python -m measure.norm_sweeps --size chapter --parts budgets --out FILE   (a CPU core)
  python -m measure.norm_sweeps --size scale --out FILE [--minutes M]       (a GPU)
  python -m measure.norm_sweeps --size tiny --out FILE        (a check of the script)

budgets (chapter 12): LayerNorm, RMSNorm, DyT (alpha0 0.5 and 2) and Derf in every
norm's place, each at every rate of a grid so that each arm can be read at its own best
rate, on two training texts: a small one that the model sees many times and all of the
text. The whole validation curve is stored, so that a reader can take the last
checkpoint or the best (early stopping).
widths (chapter 13): pre-LN, pre-LN with QK-norm and pre-LN with z-loss at widths from
the chapter's 32 up, each at eight peak rates, for the learning-rate sensitivity of each
recipe at each width (Wortsman et al.: how it grows with the width).

Sizes: `chapter` is the chapters' own model and text (normbook/gpt.py's docstrings),
on a CPU; `scale` is 10 to 100 times that on measure/gpt_at_scale.py's text (Python's
standard library), on a GPU. The model, the optimizer, the schedule, the training loop
and the yardsticks (scored on the models' own validation windows) are normbook/gpt.py's.
The results go to a JSON file with the device, versions, date and command.
"""

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import torch

from measure import provenance
from measure.gpt_at_scale import stdlib_text
from normbook.gpt import Corpus, doc_text, train, yardsticks

ARMS = {  # chapter 12: what fills every norm's place
    "LayerNorm": dict(kind="ln"),
    "RMSNorm": dict(kind="rms"),
    "DyT, alpha0 0.5": dict(kind="dyt", alpha0=0.5),
    "DyT, alpha0 2": dict(kind="dyt", alpha0=2.0),
    "Derf, alpha0 0.5": dict(kind="derf", alpha0=0.5),
}
RECIPES = {  # chapter 13: what differs from plain pre-LN
    "pre-LN": dict(),
    "QK-norm": dict(qk_norm=True),
    "z-loss": dict(z_loss=1e-4),
}
CHAPTER_LRS = [round(10**e, 4) for e in torch.linspace(-2.5, 0, 8).tolist()]
SIZES = {
    "chapter": {  # chapter 12's and 13's models (two blocks, 32 characters) and text
        "budgets": dict(
            d=32, n_heads=4, n_layers=2, context=32, batch=16, steps=400,
            lrs=[1e-3, 3e-3, 1e-2, 3e-2, 1e-1], small=8_000, val_windows=64,
            seeds=list(range(9)),
        ),
        "widths": dict(
            widths=[32, 64, 128], n_layers=2, head=8, context=32, batch=16,
            steps=200, lrs=CHAPTER_LRS, val_windows=64, seeds=[0, 1, 2],
        ),
    },
    "scale": {
        "budgets": dict(
            d=128, n_heads=4, n_layers=4, context=64, batch=32, steps=2000,
            lrs=[1e-3, 3e-3, 1e-2, 3e-2], small=400_000, val_windows=256,
            seeds=[0, 1, 2],
        ),
        "widths": dict(
            widths=[32, 64, 128, 256, 512], n_layers=2, head=8, context=64, batch=32,
            steps=1000, lrs=[round(10**e, 4) for e in torch.linspace(-3, 0, 8).tolist()],
            val_windows=256, seeds=[0, 1, 2],
        ),
    },
    "tiny": {
        "budgets": dict(
            d=8, n_heads=2, n_layers=1, context=8, batch=2, steps=4, lrs=[1e-2, 3e-2],
            small=3_000, val_windows=4, seeds=[0, 1],
        ),
        "widths": dict(
            widths=[4, 8], n_layers=1, head=2, context=8, batch=2, steps=4,
            lrs=[1e-2, 1e-1], val_windows=4, seeds=[0, 1],
        ),
    },
}  # fmt: skip


def curves(record):
    """The validation loss of every run at every checkpoint: (run, checkpoint)."""
    return [[round(float(v), 4) for v in row] for row in record["val"].T]


def budgets(part, corpus, device, log):
    texts = {
        f"first {part['small']:,} chars": corpus._replace(
            train=corpus.train[: part["small"]]
        ),
        "all": corpus,
    }
    model = {k: part[k] for k in ["d", "n_heads", "n_layers", "batch", "context"]}
    for budget, data in texts.items():
        yard = yardsticks(data, part["context"], part["val_windows"])
        for arm, norm in ARMS.items():
            steps = part["steps"]
            start = time.perf_counter()
            _, runs, record = train(
                data, "pre", lrs=part["lrs"], warmups=[steps // 10],
                seeds=part["seeds"],
                steps=steps, every=max(1, steps // 20), val_windows=part["val_windows"],
                device=device, **model, **norm,
            )  # fmt: skip
            log(
                budget=budget, arm=arm, yardsticks=yard, runs=[list(r) for r in runs],
                steps_recorded=record["step"].tolist(), val=curves(record),
                seconds=round(time.perf_counter() - start, 1),
            )  # fmt: skip


def widths(part, corpus, device, log):
    steps = part["steps"]
    yard = yardsticks(corpus, part["context"], part["val_windows"])
    for d in part["widths"]:
        for recipe, switch in RECIPES.items():
            start = time.perf_counter()
            _, runs, record = train(
                corpus, "pre", "ln", part["lrs"], [steps // 10], part["seeds"], steps,
                batch=part["batch"], context=part["context"], every=max(1, steps // 10),
                val_windows=part["val_windows"], device=device, d=d,
                n_heads=d // part["head"],
                n_layers=part["n_layers"], **switch,
            )  # fmt: skip
            log(
                width=d, recipe=recipe, yardsticks=yard, runs=[list(r) for r in runs],
                steps_recorded=record["step"].tolist(), val=curves(record),
                max_logit=[round(float(v), 2) for v in record["logit"][-1].amax(-1)],
                seconds=round(time.perf_counter() - start, 1),
            )  # fmt: skip


def run(size, parts, out, command, device, text, what, minutes=None):
    corpus = Corpus.of(text)
    result = {
        "environment": provenance.environment(command),
        "tf32": device == "cuda",
        "size": size,
        "corpus": {
            "what": what,
            "characters": len(text),
            "symbols": corpus.V,
            "sha256": hashlib.sha256(text.encode()).hexdigest(),
        },
        "parts": {name: dict(part) for name, part in parts.items()},
        "runs": [],
    }
    deadline = time.monotonic() + 60 * minutes if minutes else None

    def log(**entry):
        if deadline and time.monotonic() > deadline:
            result["incomplete"] = f"stopped after {minutes} minutes"
            out.write_text(json.dumps(result, indent=1) + "\n")
            raise TimeoutError(result["incomplete"])
        result["runs"].append({"part": name, **entry})
        out.write_text(json.dumps(result, indent=1) + "\n")
        finals = " ".join(f"{row[-1]:.2f}" for row in entry["val"])
        label = {k: v for k, v in entry.items() if k in ("budget", "arm", "width")}
        print(name, label, entry.get("recipe", ""), f"{entry['seconds']} s:", finals)

    for name, part in parts.items():
        try:
            {"budgets": budgets, "widths": widths}[name](part, corpus, device, log)
        except TimeoutError:
            break
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="JSON file to write")
    parser.add_argument("--size", choices=list(SIZES), default="scale")
    parser.add_argument("--parts", default="budgets,widths", help="which, in order")
    parser.add_argument("--minutes", type=float, help="start no training after this")
    args = parser.parse_args()
    argv = [Path(a).name if a == str(args.out) else a for a in sys.argv[1:]]
    command = "python -m measure.norm_sweeps " + " ".join(argv)
    names = args.parts.split(",")
    unknown = set(names) - set(SIZES[args.size])
    if unknown:
        raise SystemExit(f"norm_sweeps: no part {', '.join(sorted(unknown))}")
    parts = {n: SIZES[args.size][n] for n in names}
    if args.size == "scale":
        device = "cuda" if torch.cuda.is_available() else "cpu"
        torch.backends.cuda.matmul.allow_tf32 = True
        text, what = stdlib_text(), "Python standard library source (gpt_at_scale.py)"
    else:  # the chapters' text; tiny: a slice of it, a check of the script
        device = "cpu"
        text = doc_text()
        what = "docstrings of the standard library (normbook/gpt.py: DOC_MODULES)"
        if args.size == "tiny":
            text = text[:20_000]
    run(args.size, parts, args.out, command, device, text, what, args.minutes)


if __name__ == "__main__":
    main()
