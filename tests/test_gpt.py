"""The small GPT of normbook/gpt.py, its yardsticks, and the at-scale script with its
stored results."""

import hashlib
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import normbook.gpt
from normbook.gpt import (
    GPT,
    Corpus,
    doc_text,
    learning_rate,
    ngram_counter,
    ngram_loss,
    train,
    validation_windows,
    yardsticks,
)

# Unit tests of normbook/gpt.py and the measurement scripts at tiny sizes: static
# (no chapter runs), so `make check` runs them.
pytestmark = pytest.mark.static

ROOT = Path(__file__).resolve().parent.parent

STORED = ROOT / "book" / "assets" / "measurements"


def markov_text(n, seed=0):
    """n symbols of a first-order Markov chain on 'abcd', its entropy rate (nats) and
    the entropy of its stationary distribution."""
    P = torch.tensor(
        [[0.7, 0.1, 0.1, 0.1], [0.1, 0.1, 0.4, 0.4], [0.25] * 4, [0.5, 0.0, 0.0, 0.5]],
        dtype=torch.float64,
    )
    g = torch.Generator().manual_seed(seed)
    state, out = 0, []
    uniform = torch.rand(n, generator=g, dtype=torch.float64)
    cumulative = P.cumsum(1)
    for u in uniform:
        state = min(int((cumulative[state] < u).sum()), 3)
        out.append("abcd"[state])
    pi = torch.linalg.matrix_power(P, 200)[0]  # the stationary distribution
    rate = float(-(pi[:, None] * P * P.clamp(min=1e-300).log()).sum())
    stationary = float(-(pi * pi.log()).sum())
    return "".join(out), rate, stationary


def test_the_yardsticks_find_a_markov_chains_entropy():
    """On a Markov chain's text the unigram yardstick is the stationary entropy and the
    bigram and trigram ones its entropy rate (a trigram can do no better)."""
    text, rate, stationary = markov_text(200_000)
    sticks = yardsticks(Corpus.of(text), context=32, val_windows=4000)
    assert sticks["uniform"] == pytest.approx(math.log(4))
    assert sticks["unigram"] == pytest.approx(stationary, abs=0.01)
    assert sticks["bigram"] == pytest.approx(rate, abs=0.01)
    assert sticks["trigram"] == pytest.approx(rate, abs=0.01)
    assert rate < stationary - 0.15  # the chain has memory for the bigram to find


def test_an_unseen_context_falls_back_to_lower_orders():
    """Validation text with a pair never seen in training still gets a finite loss."""
    corpus = Corpus.of("ab" * 5000 + "ba" * 500)  # validation chunks hold 'ba' pairs
    assert math.isfinite(ngram_loss(corpus, 3, torch.arange(len(corpus.val))))


def test_the_counts_of_each_position_read_the_symbols_before_it():
    """p(seq[t] | the k symbols before t), counted in the history; -1 where the
    context would start before the text does."""
    history = torch.tensor([0, 1, 0, 1, 0, 2])  # "ababac"
    p = ngram_counter(history, 3, 3)(torch.tensor([0, 1, 0, 2]))
    torch.testing.assert_close(
        p,
        torch.tensor(
            [
                [3 / 6, 2 / 6, 3 / 6, 1 / 6],  # the symbol's frequency
                [-1, 2 / 3, 2 / 2, 1 / 3],  # a is followed by b twice, by c once
                [-1, -1, 2 / 2, 1 / 2],  # "ab" by a twice; "ba" by b once, c once
            ],
            dtype=torch.float64,
        ),
    )


def test_the_yardsticks_score_the_models_own_windows(monkeypatch):
    """A yardstick is scored on the characters a model is scored on: the targets of
    the validation windows that train() evaluates (validation_windows), with the same
    context and number of windows by default; not on the whole validation text."""
    corpus = Corpus.of(markov_text(20_000)[0])
    x, y, targets = validation_windows(corpus, 8, 5)
    assert torch.equal(y, corpus.val[targets]) and torch.equal(
        x, corpus.val[targets - 1]
    )
    calls = []

    def spy(corpus, context, count):
        calls.append((context, count))
        return validation_windows(corpus, context, count)

    monkeypatch.setattr(normbook.gpt, "validation_windows", spy)
    kw = dict(steps=1, batch=2, d=8, n_heads=2, n_layers=1)
    train(corpus, "pre", "ln", [1e-2], [0], [0], **kw)
    yardsticks(corpus)
    train(corpus, "pre", "ln", [1e-2], [0], [0], context=8, val_windows=5, **kw)
    sticks = yardsticks(corpus, context=8, val_windows=5)
    assert calls[0] == calls[1] and calls[2] == calls[3] == (8, 5)
    assert sticks["unigram"] == pytest.approx(ngram_loss(corpus, 1, targets.flatten()))
    whole = ngram_loss(corpus, 1, torch.arange(len(corpus.val)))
    assert sticks["unigram"] != pytest.approx(whole, abs=1e-3)


def test_the_warm_up_reaches_the_peak_then_decays_to_a_tenth():
    peak, steps = torch.tensor([1e-2, 1e-2]), 200
    warmup = torch.tensor([0.0, 50.0])
    lr = torch.stack([learning_rate(peak, warmup, s, steps) for s in range(1, 201)])
    assert lr[0, 0] == pytest.approx(1e-2, rel=1e-3)  # no warm-up: the peak at once
    assert lr[49, 1] == pytest.approx(1e-2)  # step 50: the warm-up arm at its peak
    assert lr[:50, 1].diff().min() > 0 and lr[50:, 1].diff().max() <= 0
    assert lr[-1].tolist() == pytest.approx([1e-3, 1e-3])  # 10 % at the last step


def test_stacked_models_train_as_if_alone():
    """Model i of a stack gets exactly its own gradient: seed 1 trained beside seed 0
    follows the same path as seed 1 trained alone."""
    corpus = Corpus.of(markov_text(20_000)[0])
    kw = dict(steps=4, batch=4, context=8, every=2, d=8, n_heads=2, n_layers=2)
    _, _, both = train(corpus, "pre", "ln", [1e-2], [0], [0, 1], **kw)
    _, _, alone = train(corpus, "pre", "ln", [1e-2], [0], [1], **kw)
    torch.testing.assert_close(both["val"][:, 1], alone["val"][:, 0])
    assert not torch.allclose(both["val"][:, 0], both["val"][:, 1])


def test_the_scale_script_runs_at_a_tiny_size(tmp_path):
    """measure/gpt_at_scale.py --tiny: every placement, on a slice of the text, on the
    CPU (a check of the script, not a result)."""
    out = tmp_path / "tiny.json"
    subprocess.run(
        [sys.executable, "-m", "measure.gpt_at_scale", "--tiny", "--out", out],
        check=True,
        cwd=ROOT,
    )
    result = json.loads(out.read_text())
    check_result(result, {"tiny"})


def check_result(result, sizes):
    assert {"date", "command", "python", "torch"} <= set(result["environment"])
    assert (
        result["corpus"]["train"] + result["corpus"]["val"]
        == (result["corpus"]["characters"])
    )
    runs = result["runs"]
    assert {r["size"] for r in runs} == sizes and "incomplete" not in result
    assert {r["placement"] for r in runs} == {"post-LN", "pre-LN", "pre-RMSNorm"}
    assert len(runs) == 3 * len(sizes)
    for r in runs:
        # each size's yardsticks on its own windows; the files stored before that
        # say what theirs were scored on
        s = r["yardsticks"] if "yardsticks" in r else result["yardsticks"]
        assert s["uniform"] > s["unigram"] > s["bigram"] > s["trigram"] > 0
        models = len(r["lrs"]) * len(r["warmups"]) * len(result["seeds"])
        assert len(r["runs"]) == len(r["val"]) == models
        assert r["steps_recorded"][0] == 0 and r["steps_recorded"][-1] == r["steps"]
        for curve in r["val"]:
            assert len(curve) == len(r["steps_recorded"])
            assert curve[0] > s["unigram"]  # an untrained model knows nothing


def test_the_norms_script_runs_at_a_tiny_size(tmp_path):
    """measure/norm_sweeps.py --size tiny: chapter 12's arms on two budgets and chapter
    13's recipes at two widths, every rate and seed, on the CPU (a check of the
    script, not a result)."""
    out = tmp_path / "tiny.json"
    subprocess.run(
        [sys.executable, "-m", "measure.norm_sweeps", "--size", "tiny", "--out", out],
        check=True,
        cwd=ROOT,
    )
    result = json.loads(out.read_text())
    check_sweeps(result, "tiny")


def check_sweeps(result, size):
    assert {"date", "command", "python", "torch"} <= set(result["environment"])
    assert "incomplete" not in result and result["size"] == size
    parts = result["parts"]
    expected = set()
    if "budgets" in parts:
        small = f"first {parts['budgets']['small']:,} chars"
        arms = ["LayerNorm", "RMSNorm", "DyT, alpha0 0.5", "DyT, alpha0 2"]
        expected |= {("budgets", b, a) for b in [small, "all"] for a in arms}
        expected |= {("budgets", b, "Derf, alpha0 0.5") for b in [small, "all"]}
    if "widths" in parts:
        recipes = ["pre-LN", "QK-norm", "z-loss"]
        expected |= {
            ("widths", w, r) for w in parts["widths"]["widths"] for r in recipes
        }
    labels = ("budget", "arm"), ("width", "recipe")
    found = [
        (r["part"], *(r[k] for k in labels[r["part"] == "widths"]))
        for r in result["runs"]
    ]
    assert sorted(found) == sorted(expected)
    budgets = [r for r in result["runs"] if r["part"] == "budgets"]
    widths = [r for r in result["runs"] if r["part"] == "widths"]
    for r in budgets + widths:
        lrs, seeds = (result["parts"][r["part"]][k] for k in ("lrs", "seeds"))
        assert sorted(map(tuple, r["runs"])) == sorted(
            (lr, r["runs"][0][1], s) for lr in lrs for s in seeds
        )
        assert len(r["val"]) == len(lrs) * len(seeds)
        assert r["steps_recorded"][0] == 0
        s = r["yardsticks"]  # each budget's counted on its own training text
        assert s["uniform"] > s["unigram"] > s["bigram"]
        for curve in r["val"]:
            assert len(curve) == len(r["steps_recorded"])
            assert curve[0] > s["unigram"]  # an untrained model knows nothing


@pytest.mark.parametrize(
    "name, sizes",
    [
        ("gpt-scale-h100.json", {"chapter", "medium", "large"}),
        ("gpt-depth-h100.json", {"medium-2", "medium-4", "medium-16"}),
    ],
)
def test_the_stored_runs_are_complete(name, sizes):
    """The stored GPU runs: every size, placement, rate, warm-up and seed, with the
    device and versions that produced them."""
    result = json.loads((STORED / name).read_text())
    check_result(result, sizes)
    # trained before the yardsticks were scored on the models' windows: said so
    assert "whole validation text" in result["yardsticks_scored_on"]
    env = result["environment"]
    assert env["device"].startswith("NVIDIA") and env["driver"] and result["tf32"]
    assert env["command"].startswith("python scripts/gpt_at_scale.py")


@pytest.mark.parametrize(
    "placement, kind",
    [("peri", "ln"), ("reordered", "rms"), ("pre", "dyt"), ("post", "dyt")],
)
def test_every_placement_and_kind_trains(placement, kind):
    corpus = Corpus.of(markov_text(20_000)[0])
    kw = dict(steps=20, batch=8, context=8, every=20, d=16, n_heads=2, n_layers=2)
    model, _, record = train(corpus, placement, kind, [1e-2], [0], [0, 1], **kw)
    first, last = record["val"][0], record["val"][-1]
    assert torch.isfinite(last).all() and (last < first - 0.3).all()
    if kind == "dyt":  # alpha is learned
        assert (model.blocks[0].ln_1.alpha != 0.5).all()


def test_the_output_norms_add_unit_branches_to_the_stream():
    """With a norm on each sublayer's output (peri, reordered), each sublayer adds a
    vector of mean square about 1 at initialization (gamma = 1, beta = 0) to the stream,
    so its mean square grows by about 2 per block, whatever the weights."""
    torch.manual_seed(0)
    idx = torch.randint(0, 20, (1, 8, 16))
    for placement in ("peri", "reordered"):
        model = GPT(1, 20, placement, d=256, n_layers=6, context=16)
        streams = []
        with torch.no_grad():
            model(idx, streams)
        q = torch.tensor([float(z.square().mean()) for z in streams])
        assert (q.diff() - 2).abs().max() < 0.4, (placement, q)


def test_layernorm_scaling_is_a_pre_norm_with_gains_over_sqrt_depth():
    """depth_scaled multiplies block l's norm outputs by 1/sqrt(l): the same function
    as a pre-norm model whose block-l gamma and beta are divided by sqrt(l)."""
    torch.manual_seed(0)
    scaled = GPT(2, 20, "pre", n_layers=4, depth_scaled=True)
    plain = GPT(2, 20, "pre", n_layers=4)
    plain.load_state_dict(scaled.state_dict())
    with torch.no_grad():
        for l, block in enumerate(plain.blocks, start=1):
            for norm in (block.ln_1, block.ln_2):
                norm.gamma /= math.sqrt(l)
                norm.beta /= math.sqrt(l)
    idx = torch.randint(0, 20, (2, 3, 8))
    torch.testing.assert_close(scaled(idx), plain(idx))
    with pytest.raises(ValueError, match="pre-norm"):
        GPT(1, 20, "post", depth_scaled=True)


def test_the_update_probes():
    """At the first update Adam moves every parameter by the full rate (m / sqrt(v) is
    the sign of the gradient), so a warm-up shrinks the first relative update by
    exactly its rate's ratio; probing changes nothing in training."""
    corpus = Corpus.of(markov_text(20_000)[0])
    kw = dict(steps=6, batch=4, context=8, every=3, d=8, n_heads=2, n_layers=2)
    _, _, probed = train(corpus, "post", "ln", [1e-2], [0, 4], [0], probes=3, **kw)
    _, _, plain = train(corpus, "post", "ln", [1e-2], [0, 4], [0], **kw)
    torch.testing.assert_close(probed["val"], plain["val"], rtol=0, atol=0)
    step_size, update = probed["step_size"], probed["update"]  # (update, model, block)
    assert step_size.shape == update.shape == (3, 2, 2)
    torch.testing.assert_close(step_size[0], torch.ones(2, 2), atol=1e-3, rtol=0)
    lr = learning_rate(torch.tensor([1e-2, 1e-2]), torch.tensor([0.0, 4.0]), 1, 6)
    torch.testing.assert_close(update[0, 1], update[0, 0] * lr[1] / lr[0])
    assert probed["output"].shape == (3, 2) and (probed["output"] > 0).all()


def test_gpt2_init_starts_at_the_uniform_guess():
    """On text without structure (20 symbols drawn uniformly), GPT-2's initialization
    (small weights, tied head) starts within a few hundredths of ln V; the book's
    unit-variance head starts about half a nat above it (logits of variance ~1)."""
    g = torch.Generator().manual_seed(0)
    letters = "abcdefghijklmnopqrst"
    text = "".join(letters[i] for i in torch.randint(20, (20_000,), generator=g))
    corpus = Corpus.of(text)
    kw = dict(steps=0, batch=4, context=16, every=1, d=32, n_layers=4)
    seeds = [0, 1, 2]
    _, _, gpt2 = train(corpus, "pre", "ln", [1e-2], [0], seeds, gpt2_init=True, **kw)
    _, _, book = train(corpus, "pre", "ln", [1e-2], [0], seeds, **kw)
    assert (gpt2["val"][0] - math.log(20)).abs().max() < 0.03
    assert (book["val"][0] - math.log(20) > 0.2).all()
    model = GPT(1, 4, gpt2_init=True)
    assert model.head is None  # tied: the head is the token embeddings, transposed
    assert float(model.blocks[0].w_o.detach().std()) < 0.02 / math.sqrt(8) * 1.2


def test_the_attention_stats():
    """The recorded logit is max |q.k| / sqrt(d_head) over the causal pairs and the
    entropy that of each query's softmax over its causal keys, both computed here from
    the weights; with QK-norm and unit gains the logit is at most sqrt(d_head)."""
    torch.manual_seed(0)
    model = GPT(2, 10, "pre", d=16, n_heads=2, n_layers=2, context=5)
    idx = torch.randint(0, 10, (2, 3, 5))
    stats, streams = [], []
    with torch.no_grad():
        model(idx, streams, stats)
        block, x = model.blocks[0], streams[0]
        q, k, _ = (block.ln_1(x) @ block.w_qkv).view(2, 3, 5, 3, 2, 8).unbind(3)
        s = torch.einsum("mbihd,mbjhd->mbhij", q, k) / math.sqrt(8)
        causal = torch.ones(5, 5).tril().bool()
        largest = s.abs().where(causal, 0).amax((1, 2, 3, 4))
        p = s.masked_fill(~causal, float("-inf")).softmax(-1)
        logp = p.clamp(min=1e-30).log()
        entropy = -(p * logp).sum(-1).mean((1, 2, 3))
    torch.testing.assert_close(stats[0][0], largest)
    torch.testing.assert_close(stats[0][1], entropy)
    assert ((entropy > 0) & (entropy < math.log(5))).all()
    big = GPT(2, 10, "pre", qk_norm=True, d=16, n_heads=2, n_layers=2, context=5)
    with torch.no_grad():
        big.blocks[0].w_qkv *= 100
        bounded = []
        big(idx, None, bounded)
    assert all((b[0] <= math.sqrt(8) + 1e-5).all() for b in bounded)


def test_derf_softcap_and_z_loss():
    """Derf is erf(alpha x + shift) gamma + beta; a soft-capped head gives c tanh(z / c)
    of the plain head's logits z, never beyond its cap; the z-loss adds
    z_loss * mean (log Z)^2 to the cross-entropy."""
    from normbook.gpt import Norm, loss_per_model

    norm = Norm("derf", 2, 6, alpha0=0.7)
    with torch.no_grad():
        norm.shift += 0.3
        norm.gamma.normal_()
        norm.beta.normal_()
    x = torch.randn(2, 5, 6)
    expected = torch.erf(0.7 * x + 0.3) * norm.gamma + norm.beta
    torch.testing.assert_close(norm(x), expected)
    idx = torch.randint(0, 10, (2, 3, 5))
    torch.manual_seed(0)
    plain = GPT(2, 10, "pre", d=16, n_heads=2, n_layers=1, context=5)
    torch.manual_seed(0)
    capped = GPT(2, 10, "pre", d=16, n_heads=2, n_layers=1, context=5, softcap=2.0)
    with torch.no_grad():
        z, zc = plain(idx), capped(idx)
    assert zc.abs().max() < 2.0 and z.abs().max() > 2.0
    torch.testing.assert_close(zc, 2.0 * torch.tanh(z / 2.0))
    y = torch.randint(0, 10, (2, 3, 5))
    with torch.no_grad():
        logz = plain(idx).logsumexp(-1).square().mean(1)
        torch.testing.assert_close(
            loss_per_model(plain, idx, y, 1e-2),
            loss_per_model(plain, idx, y) + 1e-2 * logz,
        )


def test_token_cosine_sees_rank_collapse():
    from normbook.gpt import token_cosine

    g = torch.Generator().manual_seed(0)
    same = (
        torch.randn(2, 1, 1, 256, generator=g).expand(2, 4, 8, 256).reshape(2, 32, 256)
    )
    torch.testing.assert_close(token_cosine(same, 8), torch.ones(2))
    apart = torch.randn(2, 32, 256, generator=g)
    assert token_cosine(apart, 8).abs().max() < 0.05


def test_the_stored_runs_share_their_text():
    """Chapter 08 shows the two stored files (make gpt-at-scale's) against one set of
    yardsticks and seeds: the files trained on the same text with the same seeds."""
    scale, depth = (
        json.loads((STORED / name).read_text())
        for name in ["gpt-scale-h100.json", "gpt-depth-h100.json"]
    )
    assert scale["corpus"] == depth["corpus"]
    assert scale["yardsticks"] == depth["yardsticks"]
    assert scale["seeds"] == depth["seeds"] == [0, 1, 2]


def check_depth_sweep(result, n_layers, models):
    assert {"date", "command", "python", "torch"} <= set(result["environment"])
    assert "placements_at_depth" in result["environment"]["command"]
    s = result["yardsticks"]
    assert s["uniform"] > s["unigram"] > s["bigram"] > s["trigram"] > 0
    assert result["model"]["n_layers"] == n_layers
    placements = result["placements"]
    assert list(placements) == ["post", "pre", "peri", "reordered", "LN scaling"]
    for r in placements.values():
        assert len(r["runs"]) == len(r["val"]) == len(r["grad"]) == models
        assert r["steps"][0] == 0 and r["steps"][-1] == result["model"]["steps"]
        assert all(len(curve) == len(r["steps"]) for curve in r["val"])
        assert all(curve[0] > s["unigram"] for curve in r["val"])  # untrained
        assert all(
            len(g) == len(lg) == n_layers for g, lg in zip(r["grad"], r["logit"])
        )
        # the stream's RMS at the start and the end: stored since the full sweep was
        for rms in r.get("rms", []):
            assert len(rms) == 2 and all(len(at) == n_layers + 1 for at in rms)


def test_the_depth_sweep_merges_seeds_run_apart(tmp_path):
    """measure/placements_at_depth.py --tiny (every placement, a few steps: a check of
    the script, not a result), run whole and one seed per process, then merged: the
    same numbers (each model depends on its own seed alone), with each part's
    environment and seeds listed."""
    run = [sys.executable, "-m", "measure.placements_at_depth", "--tiny", "--out"]
    parts = [tmp_path / f"seed-{s}.json" for s in (0, 1)]
    for s, part in enumerate(parts):
        subprocess.run([*run, part, "--seeds", str(s)], check=True, cwd=ROOT)
    merged, whole = tmp_path / "merged.json", tmp_path / "whole.json"
    subprocess.run([*run, merged, "--merge", *parts], check=True, cwd=ROOT)
    subprocess.run([*run, whole], check=True, cwd=ROOT)
    merged, whole = (json.loads(f.read_text()) for f in (merged, whole))
    check_depth_sweep(whole, n_layers=3, models=2)
    check_depth_sweep(merged, n_layers=3, models=2)
    assert [p["seeds"] for p in merged["environment"]["parts"]] == [[0], [1]]
    assert merged["model"] == whole["model"]
    for name, r in whole["placements"].items():
        m = merged["placements"][name]
        assert m["runs"] == r["runs"]
        assert "rms" in r
        for key in ["val", "grad", "logit", "rms"]:
            assert m[key] == r[key], (name, key)


def test_the_stored_depth_sweep_is_complete():
    """The stored sweep that chapter 13 shows (make placements-at-depth's file) is
    complete: five placements at 12 blocks, each with one model per rate and seed (six
    rates, nine seeds), from three parts of three seeds."""
    result = json.loads((STORED / "placements-at-depth.json").read_text())
    lrs, seeds = result["model"]["lrs"], result["model"]["seeds"]
    assert lrs == [1e-3, 3e-3, 1e-2, 3e-2, 1e-1, 3e-1] and seeds == list(range(9))
    check_depth_sweep(result, n_layers=12, models=len(lrs) * len(seeds))
    # its yardsticks are scored on the models' windows of its text (rescored so)
    text = doc_text()
    assert hashlib.sha256(text.encode()).hexdigest() == result["text_sha256"]
    context = result["model"]["context"]
    assert result["yardsticks"] == yardsticks(Corpus.of(text), context)
    for r in result["placements"].values():
        assert sorted(map(tuple, r["runs"])) == [(lr, s) for lr in lrs for s in seeds]
    parts = [p["seeds"] for p in result["environment"]["parts"]]
    assert parts == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]


def test_the_stored_streams_retrain_the_sweep():
    """The stored streams (make placements-streams's file: the sweep's five placements
    at its rate 0.01, trained again to record the stream's RMS, which the sweep did
    not yet store) end at the sweep's validation loss, model for model."""
    sweep, streams = (
        json.loads((STORED / name).read_text())
        for name in ["placements-at-depth.json", "placements-streams.json"]
    )
    model = streams["model"]
    assert model["lrs"] == [0.01] and model["seeds"] == sweep["model"]["seeds"]
    assert {k: v for k, v in model.items() if k != "lrs"} == {
        k: v for k, v in sweep["model"].items() if k != "lrs"
    }
    check_depth_sweep(streams, n_layers=12, models=len(model["seeds"]))
    for name, r in streams["placements"].items():
        full = sweep["placements"][name]
        at = {tuple(run): curve for run, curve in zip(full["runs"], full["val"])}
        assert len(r["rms"]) == len(r["runs"])
        for run, curve in zip(r["runs"], r["val"]):
            assert curve == at[tuple(run)], (name, run)


@pytest.mark.parametrize("part", ["budgets", "widths"])
def test_the_stored_sweeps_are_complete(part):
    """make norm-sweeps's files, which chapters 12 and 13 show: every arm or recipe at
    every rate and seed, on the chapters' text, with its yardsticks scored on the
    models' windows of it."""
    result = json.loads((STORED / f"norm-sweeps-{part}.json").read_text())
    assert list(result["parts"]) == [part]
    check_sweeps(result, "chapter")
    text = doc_text()
    assert hashlib.sha256(text.encode()).hexdigest() == result["corpus"]["sha256"]
    settings = result["parts"][part]
    corpus = Corpus.of(text)
    texts = {"all": corpus}  # the training texts, by the budget's name
    if part == "budgets":
        small = f"first {settings['small']:,} chars"
        texts[small] = corpus._replace(train=corpus.train[: settings["small"]])
    window = settings["context"], settings["val_windows"]
    sticks = {name: yardsticks(data, *window) for name, data in texts.items()}
    for r in result["runs"]:
        assert r["yardsticks"] == sticks[r.get("budget", "all")]
