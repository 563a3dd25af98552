"""Chapters 12 and 13 at 10 to 100 times their size, on a GPU.

  python -m measure.norms_at_scale --out FILE [--parts budgets,widths] [--minutes M]
  python -m measure.norms_at_scale --out FILE --tiny     (a check of the script, on a CPU)

budgets (chapter 12): LayerNorm, RMSNorm, DyT and Derf in every norm's place, each at
every rate of a grid so that each arm can be read at its own best rate, on two training
texts: a small one that the model sees many times and all of the text. The whole
validation curve is stored, so that a reader can take the last checkpoint or the best
(early stopping).
widths (chapter 13): pre-LN, pre-LN with QK-norm and pre-LN with z-loss at widths from
the chapter's 32 up, each at eight peak rates, for the learning-rate sensitivity of each
recipe at each width (Wortsman et al.: how it grows with the width).

The model, the optimizer, the schedule and the training loop are normbook/gpt.py's, the
text measure/gpt_at_scale.py's (Python's standard library, with the chapters' split and
yardsticks). The results go to a JSON file with the device, versions, date and command.
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
from normbook.gpt import Corpus, train, yardsticks

SEEDS = [0, 1, 2]
ARMS = {  # chapter 12: what fills every norm's place
    "LayerNorm": dict(kind="ln"),
    "RMSNorm": dict(kind="rms"),
    "DyT, alpha0 0.5": dict(kind="dyt", alpha0=0.5),
    "Derf, alpha0 0.5": dict(kind="derf", alpha0=0.5),
}
RECIPES = {  # chapter 13: what differs from plain pre-LN
    "pre-LN": dict(),
    "QK-norm": dict(qk_norm=True),
    "z-loss": dict(z_loss=1e-4),
}
PARTS = {
    "budgets": dict(
        d=128, n_heads=4, n_layers=4, context=64, batch=32, steps=2000,
        lrs=[1e-3, 3e-3, 1e-2, 3e-2], small=400_000, val_windows=256,
    ),
    "widths": dict(
        widths=[32, 64, 128, 256, 512], n_layers=2, head=8, context=64, batch=32,
        steps=1000, lrs=[round(10**e, 4) for e in torch.linspace(-3, 0, 8).tolist()],
        val_windows=256,
    ),
}  # fmt: skip
TINY = {
    "budgets": dict(
        d=8, n_heads=2, n_layers=1, context=8, batch=2, steps=4, lrs=[1e-2, 3e-2],
        small=3_000, val_windows=4,
    ),
    "widths": dict(
        widths=[4, 8], n_layers=1, head=2, context=8, batch=2, steps=4,
        lrs=[1e-2, 1e-1], val_windows=4,
    ),
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
        yard = yardsticks(data)
        for arm, norm in ARMS.items():
            steps = part["steps"]
            start = time.perf_counter()
            _, runs, record = train(
                data, "pre", lrs=part["lrs"], warmups=[steps // 10], seeds=SEEDS,
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
    for d in part["widths"]:
        for recipe, switch in RECIPES.items():
            start = time.perf_counter()
            _, runs, record = train(
                corpus, "pre", "ln", part["lrs"], [steps // 10], SEEDS, steps,
                batch=part["batch"], context=part["context"], every=max(1, steps // 10),
                val_windows=part["val_windows"], device=device, d=d,
                n_heads=d // part["head"],
                n_layers=part["n_layers"], **switch,
            )  # fmt: skip
            log(
                width=d, recipe=recipe, runs=[list(r) for r in runs],
                steps_recorded=record["step"].tolist(), val=curves(record),
                max_logit=[round(float(v), 2) for v in record["logit"][-1].amax(-1)],
                seconds=round(time.perf_counter() - start, 1),
            )  # fmt: skip


def run(parts, out, command, device, text, minutes=None):
    corpus = Corpus.of(text)
    result = {
        "environment": provenance.environment(command),
        "tf32": device == "cuda",
        "corpus": {
            "what": "Python standard library source (measure/gpt_at_scale.py)",
            "characters": len(text),
            "symbols": corpus.V,
            "sha256": hashlib.sha256(text.encode()).hexdigest(),
        },
        "yardsticks": yardsticks(corpus),
        "seeds": SEEDS,
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
    parser.add_argument("--parts", default="budgets,widths", help="which, in order")
    parser.add_argument("--minutes", type=float, help="start no training after this")
    parser.add_argument("--tiny", action="store_true", help="check the script only")
    args = parser.parse_args()
    argv = [Path(a).name if a == str(args.out) else a for a in sys.argv[1:]]
    command = "python -m measure.norms_at_scale " + " ".join(argv)
    names = args.parts.split(",")
    unknown = set(names) - set(PARTS)
    if unknown:
        raise SystemExit(f"norms_at_scale: no part {', '.join(sorted(unknown))}")
    if args.tiny:  # a slice of the text, on the CPU: seconds
        tiny = {n: TINY[n] for n in names}
        run(tiny, args.out, command, "cpu", stdlib_text()[:20_000])
        return
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.backends.cuda.matmul.allow_tf32 = True
    run(
        {n: PARTS[n] for n in names},
        args.out,
        command,
        device,
        stdlib_text(),
        args.minutes,
    )


if __name__ == "__main__":
    main()
