"""The small GPT of chapter 08, M independent copies trained at once; the text it
learns (docstrings of the standard library) and the n-gram yardsticks its losses are
read against. measure/gpt_at_scale.py trains the same code at larger sizes."""

import importlib.util
import inspect
import math
from typing import NamedTuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Corpus(NamedTuple):
    """A text as symbol indices, with its fixed split: chunks of 1,000 characters,
    every tenth one validation text."""

    chars: str  # the symbols, sorted: index i stands for chars[i]
    train: torch.Tensor
    val: torch.Tensor

    @classmethod
    def of(cls, text):
        chars = "".join(sorted(set(text)))
        stoi = {c: i for i, c in enumerate(chars)}
        data = torch.tensor([stoi[c] for c in text])
        chunk = torch.arange(len(data)) // 1000
        return cls(chars, data[chunk % 10 != 9], data[chunk % 10 == 9])

    @property
    def V(self):
        return len(self.chars)


# Docstrings of 31 pure-Python standard-library modules: the module's own docstring,
# then those of its public functions and classes in alphabetical order.
DOC_MODULES = [
    "argparse", "bdb", "cmd", "codecs", "codeop", "datetime", "difflib", "fnmatch",
    "getopt", "graphlib", "hmac", "io", "json", "linecache", "numbers", "optparse",
    "pickletools", "pprint", "profile", "pyclbr", "quopri", "runpy", "shelve",
    "string", "tabnanny", "tarfile", "textwrap", "timeit", "tokenize", "unittest",
    "zipapp",
]  # fmt: skip


def module_docs(name):
    # A fresh copy of the module, run from its source: the imported copy may have been
    # patched by other code (IPython 7, for one, replaces linecache.checkcache).
    spec = importlib.util.find_spec(name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    docs = [module.__doc__ or ""]
    for attr in sorted(vars(module)):
        obj = getattr(module, attr)
        public = not attr.startswith("_")
        if public and (inspect.isfunction(obj) or inspect.isclass(obj)):
            if obj.__module__ == name:
                docs.append(obj.__doc__ or "")
    # cleandoc removes the indentation, which Python 3.13 strips at compile time
    return "\n\n".join(inspect.cleandoc(doc) for doc in docs if doc)


def doc_text():
    """The chapters' training text: the docstrings of DOC_MODULES, as the chapters
    join them."""
    return "\n\n".join(module_docs(name) for name in DOC_MODULES)


def ngram_counter(history, V, n):
    """Counts of the 1- ... n-grams of `history` (a 1-D tensor of symbols). Returns a
    function of a text `seq` that gives, for every position t of it, the counted
    p(seq[t] | the k symbols before) for k = 0 .. n-1: shape (n, len(seq)), -1 where
    the context never occurred or starts before seq does."""
    tables = []
    for k in range(n):
        codes = sum(
            history[j : len(history) - k + j] * V ** (k - j) for j in range(k + 1)
        )
        counts = torch.bincount(codes, minlength=V ** (k + 1)).double()
        tables.append(counts.view(-1, V))  # one row per context of k symbols

    def probabilities(seq):
        rows = []
        for k, table in enumerate(tables):
            m = len(seq) - k  # the positions with k symbols before them
            context = sum(seq[j : j + m] * V ** (k - 1 - j) for j in range(k))
            counts = table[context] if k else table[0].expand(m, V)
            total = counts.sum(1)
            p = counts.gather(1, seq[k:, None])[:, 0] / total.clamp(min=1)
            p = torch.where(total > 0, p, -1.0)
            rows.append(torch.cat([torch.full((k,), -1.0, dtype=p.dtype), p]))
        return torch.stack(rows)

    return probabilities


def mixture(p, weights, V):
    """Per position, the weight of each component (uniform, then the orders of p) and
    its probability: an order whose context never occurred gives its weight to the
    order below."""
    p = torch.cat([torch.full((1, p.shape[1]), 1.0 / V, dtype=p.dtype), p])
    w = weights[:, None].expand_as(p).clone()
    for k in range(len(p) - 1, 0, -1):  # from the highest order down
        unseen = p[k] < 0
        w[k - 1] += torch.where(unseen, w[k], 0.0)
        w[k] = torch.where(unseen, 0.0, w[k])
    return w, p.clamp(min=0)


def validation_windows(corpus, context, count):
    """The `count` windows of `context` characters of the validation text that every
    model is scored on, the same for every model (a generator seeded 0): their inputs,
    their targets, and the targets' positions in the validation text."""
    g = torch.Generator().manual_seed(0)
    starts = torch.randint(len(corpus.val) - context - 1, (count,), generator=g)
    x, y = windows(starts, context, corpus.val)
    return x, y, starts[:, None] + torch.arange(1, context + 1)


def ngram_loss(corpus, n, targets, iterations=30):
    """Loss (nats per symbol) of an interpolated n-gram model on the validation text's
    symbols at the positions `targets`, each read after the symbols before it in that
    text: a mixture of the uniform guess and the counted 1- ... n-gram predictions. Its
    weights are fitted by EM on the last tenth of the training text, counted on the
    rest, then used with counts over the whole training text (deleted interpolation)."""
    cut = len(corpus.train) * 9 // 10
    heldout = ngram_counter(corpus.train[:cut], corpus.V, n)(corpus.train[cut:])
    weights = torch.full((n + 1,), 1.0 / (n + 1), dtype=torch.float64)
    for _ in range(iterations):
        w, p = mixture(heldout, weights, corpus.V)
        share = w * p / (w * p).sum(0)  # each component's share of each position
        weights = share.mean(1)
    w, p = mixture(
        ngram_counter(corpus.train, corpus.V, n)(corpus.val), weights, corpus.V
    )
    return float(-(w * p).sum(0).log()[targets].mean())


def yardsticks(corpus, context=32, val_windows=64):
    """The losses a model must beat, nats per character, scored on the targets of the
    validation windows that train() scores the models on (validation_windows)."""
    targets = validation_windows(corpus, context, val_windows)[2].flatten()
    return {
        "uniform": math.log(corpus.V),
        "unigram": ngram_loss(corpus, 1, targets),
        "bigram": ngram_loss(corpus, 2, targets),
        "trigram": ngram_loss(corpus, 3, targets),
    }


class Norm(nn.Module):
    """A normalization over the last axis, for M models at once.

    kind "ln": (x - mean) / sqrt(var + eps) * gamma + beta   (chapter 02)
    kind "rms": x / sqrt(mean(x^2) + eps) * gamma            (chapter 04)
    kind "dyt": tanh(alpha * x) * gamma + beta, alpha one learned number per model
    (DyT, Zhu et al. 2025: no statistics at all), starting at alpha0.
    kind "derf": erf(alpha * x + shift) * gamma + beta, alpha and shift one learned
    number each per model (Derf, Chen et al. 2025), starting at alpha0 and 0.
    gamma and beta have shape (M, 1, d): one set per model.
    """

    def __init__(self, kind, M, d, eps=1e-5, alpha0=0.5):
        super().__init__()
        self.kind, self.eps = kind, eps
        self.gamma = nn.Parameter(torch.ones(M, 1, d))
        self.beta = nn.Parameter(torch.zeros(M, 1, d)) if kind != "rms" else None
        if kind in ("dyt", "derf"):
            self.alpha = nn.Parameter(torch.full((M, 1, 1), float(alpha0)))
        if kind == "derf":
            self.shift = nn.Parameter(torch.zeros(M, 1, 1))

    def forward(self, x):
        if self.kind == "dyt":
            return torch.tanh(self.alpha * x) * self.gamma + self.beta
        if self.kind == "derf":
            return torch.erf(self.alpha * x + self.shift) * self.gamma + self.beta
        if self.kind == "ln":
            x = x - x.mean(-1, keepdim=True)  # population variance below
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.gamma
        return x if self.beta is None else x + self.beta


def weight(M, fan_in, fan_out):
    return nn.Parameter(torch.randn(M, fan_in, fan_out) / math.sqrt(fan_in))


class Block(nn.Module):
    """One transformer block for M models at once; x has shape (M, B*T, d). `norm(d)`
    makes one of its norms; where they sit is the placement:

      "post"       x = norm(x + F(x))                the original Transformer
      "pre"        x = x + F(scale * norm(x))        GPT-2 (scale: see GPT)
      "peri"       x = x + norm'(F(norm(x)))         Peri-LN, Gemma's sandwich
      "reordered"  x = x + norm(F(x))                OLMo 2
      "none"       x = x + F(x)
    for each of the two sublayers F, attention then MLP.
    """

    def __init__(self, M, d, n_heads, placement, norm, qk_norm, scale=1.0):
        super().__init__()
        self.n_heads, self.placement, self.scale = n_heads, placement, scale
        self.w_qkv, self.w_o = weight(M, d, 3 * d), weight(M, d, d)
        self.w_1, self.w_2 = weight(M, d, 4 * d), weight(M, 4 * d, d)
        has_norm = placement != "none"
        self.ln_1 = norm(d) if has_norm else nn.Identity()
        self.ln_2 = norm(d) if has_norm else nn.Identity()
        if placement == "peri":  # a second norm on each sublayer's output
            self.ln_1_out, self.ln_2_out = norm(d), norm(d)
        d_head = d // n_heads
        self.q_norm = Norm("rms", M, d_head) if qk_norm else nn.Identity()
        self.k_norm = Norm("rms", M, d_head) if qk_norm else nn.Identity()

    def attention(self, x, B, T, stats=None):
        M, N, d = x.shape
        qkv = (x @ self.w_qkv).view(M, B * T, 3, self.n_heads, d // self.n_heads)
        q, k, v = qkv.unbind(2)  # each (M, B*T, H, d_head)
        q = self.q_norm(q.flatten(1, 2)).view_as(q)  # QK-norm: every head's query
        k = self.k_norm(k.flatten(1, 2)).view_as(k)  # and key, normalized over d_head
        q, k, v = (
            z.reshape(M * B, T, self.n_heads, -1).transpose(1, 2) for z in (q, k, v)
        )
        if stats is not None:  # each model's largest logit and mean entropy
            s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
            causal = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
            largest = s.abs().where(causal, 0).flatten(1).amax(1).view(M, B)
            p = s.masked_fill(~causal, -math.inf).softmax(-1)
            entropy = torch.special.entr(p).sum(-1).mean((1, 2)).view(M, B)
            stats.append((largest.amax(1), entropy.mean(1)))
        y = F.scaled_dot_product_attention(
            q, k, v, is_causal=True
        )  # softmax(qk/sqrt(dh))v
        return y.transpose(1, 2).reshape(M, N, d) @ self.w_o

    def mlp(self, x):
        return F.gelu(x @ self.w_1) @ self.w_2

    def forward(self, x, B, T, stats=None):
        """`stats`: a list, or None; see GPT.forward."""
        if self.placement == "post":
            x = self.ln_1(x + self.attention(x, B, T, stats))
            return self.ln_2(x + self.mlp(x))
        if self.placement == "peri":
            x = x + self.ln_1_out(self.attention(self.ln_1(x), B, T, stats))
            return x + self.ln_2_out(self.mlp(self.ln_2(x)))
        if self.placement == "reordered":
            x = x + self.ln_1(self.attention(x, B, T, stats))
            return x + self.ln_2(self.mlp(x))
        x = x + self.attention(self.scale * self.ln_1(x), B, T, stats)  # pre, none
        return x + self.mlp(self.scale * self.ln_2(x))


class GPT(nn.Module):
    """A decoder-only transformer over V symbols; M independent copies stacked along
    dimension 0. Weights start as N(0, 1/fan-in), the head a matrix of its own. With
    gpt2_init, as GPT-2 (nanoGPT's code): N(0, 0.02^2), the matrices that end a residual
    branch divided by sqrt(2 n_layers), and the head tied to the token embeddings. With
    depth_scaled (pre-norm only), block l multiplies its norms' outputs by 1/sqrt(l):
    LayerNorm Scaling (Sun et al. 2025). With softcap c, the output logits z become
    c * tanh(z / c), never larger than c (Gemma 2 and 4)."""

    def __init__(
        self,
        M,
        V,
        placement="pre",
        kind="ln",
        final_norm=True,
        qk_norm=False,
        d=32,
        n_heads=4,
        n_layers=4,
        context=32,
        depth_scaled=False,
        alpha0=0.5,
        gpt2_init=False,
        softcap=None,
    ):
        super().__init__()
        if depth_scaled and placement != "pre":
            raise ValueError("GPT: depth_scaled is LayerNorm Scaling, for pre-norm")

        def norm(width):
            return Norm(kind, M, width, alpha0=alpha0)

        self.tok = nn.Parameter(torch.randn(M, V, d))  # token embeddings
        self.pos = nn.Parameter(0.1 * torch.randn(M, context, d))  # positions
        self.blocks = nn.ModuleList(
            Block(
                M, d, n_heads, placement, norm, qk_norm,
                scale=1 / math.sqrt(l) if depth_scaled else 1.0,
            )
            for l in range(1, n_layers + 1)
        )  # fmt: skip
        use_final = final_norm and placement != "none"
        self.norm_f = norm(d) if use_final else nn.Identity()
        self.head = None if gpt2_init else weight(M, d, V)  # None: tied to tok
        self.softcap = softcap
        if gpt2_init:
            with torch.no_grad():
                for w in [self.tok, self.pos] + [b.w_qkv for b in self.blocks]:
                    w.normal_(0, 0.02)
                for b in self.blocks:
                    b.w_1.normal_(0, 0.02)
                    for w in (b.w_o, b.w_2):  # the branch's last matrices
                        w.normal_(0, 0.02 / math.sqrt(2 * n_layers))

    def forward(self, idx, streams=None, stats=None):
        """idx: (M, B, T) symbol indices -> logits (M, B*T, V). If `streams` is a
        list, the residual stream entering each block and the last one are appended;
        if `stats` is a list, a pair for each block, one value per model: its largest
        attention logit |q.k| / sqrt(d_head) and its attention's entropy (nats, mean
        over heads and positions)."""
        M, B, T = idx.shape
        flat = idx.reshape(M, B * T, 1).expand(-1, -1, self.tok.shape[-1])
        x = torch.gather(self.tok, 1, flat).view(M, B, T, -1) + self.pos[:, None, :T]
        x = x.reshape(M, B * T, -1)
        for block in self.blocks:
            if streams is not None:
                streams.append(x)
            x = block(x, B, T, stats)
        if streams is not None:
            streams.append(x)
        head = self.tok.transpose(1, 2) if self.head is None else self.head
        z = self.norm_f(x) @ head
        if self.softcap is not None:
            z = self.softcap * torch.tanh(z / self.softcap)
        return z


def learning_rate(peak, warmup, step, steps):
    """A linear ramp to the peak over `warmup` steps, then a cosine from the peak down
    to 10% of it at the last step. peak and warmup are tensors (one value per model)."""
    ramp = step / warmup.clamp(min=1)
    after = ((step - warmup) / (steps - warmup)).clamp(min=0)
    decay = 0.55 + 0.45 * torch.cos(math.pi * after)
    return peak * torch.where(step <= warmup, ramp, decay)


@torch.no_grad()
def adam_step(model, state, lr, step, b1=0.9, b2=0.98, eps=1e-8):
    """Adam (Kingma & Ba) with one learning rate per model: lr has shape (M,)."""
    for p in model.parameters():
        m, v = state.setdefault(p, (torch.zeros_like(p), torch.zeros_like(p)))
        m.lerp_(p.grad, 1 - b1)
        v.lerp_(p.grad.square(), 1 - b2)
        update = (m / (1 - b1**step)) / ((v / (1 - b2**step)).sqrt() + eps)
        p -= lr.view(-1, *[1] * (p.dim() - 1)) * update


def loss_per_model(model, x, y, z_loss=0.0):
    """Mean cross-entropy of each model; with z_loss, plus z_loss * (log Z)^2 averaged
    over positions, Z the softmax's normalizer (the z-loss of Chowdhery et al. 2022)."""
    logits = model(x)
    V = logits.shape[-1]
    losses = F.cross_entropy(logits.reshape(-1, V), y.reshape(-1), reduction="none")
    loss = losses.view(x.shape[0], -1).mean(1)
    if z_loss:
        loss = loss + z_loss * logits.logsumexp(-1).square().mean(1)
    return loss


def windows(starts, T, source):
    ix = starts[..., None] + torch.arange(T + 1, device=starts.device)
    return source[ix[..., :-1]], source[ix[..., 1:]]


@torch.no_grad()
def token_cosine(z, T):
    """Mean cosine between the centred vectors of two different positions of a window,
    per model: near 1 when every position carries the same vector (rank collapse).
    z: (M, windows * T, d), windows of T positions."""
    z = z - z.mean(-1, keepdim=True)
    z = F.normalize(z.view(z.shape[0], -1, T, z.shape[-1]), dim=-1)
    pairs = (z @ z.transpose(-1, -2)).sum((-1, -2)) - T  # leave out i = j
    return pairs.mean(1) / (T * (T - 1))


@torch.no_grad()
def update_probes(model, before, old, vx, lr):
    """What one Adam update did to each model: per block, the relative update
    |delta theta| / |theta| and the mean step per parameter in units of the learning
    rate (|m / sqrt(v)| of Adam: 1 when every parameter moves by the full rate); and how
    far the predictions moved, as the KL divergence of the new from the old on the
    validation windows (nats per character). `before`: each block's parameters before
    the update; `old`: the log-probabilities before it."""
    relative, step_size = [], []
    for block, previous in zip(model.blocks, before):
        delta = [(p - q).flatten(1) for p, q in zip(block.parameters(), previous)]
        size = sum(q.flatten(1).square().sum(1) for q in previous).sqrt()
        relative.append(sum(d.square().sum(1) for d in delta).sqrt() / size)
        count = sum(d.shape[1] for d in delta)
        step_size.append(sum(d.abs().sum(1) for d in delta) / count / lr)
    new = F.log_softmax(model(vx), -1)
    kl = (old.exp() * (old - new)).sum(-1).mean(1)
    return torch.stack(relative, 1), torch.stack(step_size, 1), kl


def train(
    corpus,
    placement,
    kind,
    lrs,
    warmups,
    seeds,
    steps,
    batch=16,
    context=32,
    every=25,
    val_windows=64,
    probes=0,
    z_loss=0.0,
    device="cpu",
    **model,
):
    """Train one model per (lr, warm-up, seed), all at once, on the cross-entropy plus
    the z-loss (see loss_per_model); `model` holds GPT's other arguments (final_norm,
    qk_norm, d, n_heads, n_layers, softcap). Returns the models, the runs and a record:
    per-block gradient norms at every step; every `every` steps (and at the last), on
    `val_windows` windows of the validation text (validation_windows): the
    validation loss (cross-entropy alone) and the mean log Z of the output logits; for
    the residual stream entering each block (and the last) its RMS and token_cosine;
    each block's largest attention logit and attention entropy (see GPT.forward); and
    for each of the first `probes` updates, what it did (see update_probes)."""
    runs = [(lr, w, s) for lr in lrs for w in warmups for s in seeds]
    kw = dict(placement=placement, kind=kind, context=context, **model)
    stacked = GPT(len(runs), corpus.V, **kw)
    with torch.no_grad():  # model i starts from the weights that seed s gives
        for s in seeds:
            torch.manual_seed(s)
            one = GPT(1, corpus.V, **kw)
            idx = [i for i, r in enumerate(runs) if r[2] == s]
            for p, q in zip(stacked.parameters(), one.parameters()):
                p[idx] = q[0]
    stacked.to(device)
    train_data = corpus.train.to(device)
    peak = torch.tensor([float(r[0]) for r in runs], device=device)
    warm = torch.tensor([float(r[1]) for r in runs], device=device)
    member_seed = torch.tensor([seeds.index(r[2]) for r in runs])
    data_rng = [torch.Generator().manual_seed(1000 + s) for s in seeds]
    vx, vy, _ = validation_windows(corpus, context, val_windows)
    vx, vy = (v.to(device).expand(len(runs), -1, -1) for v in (vx, vy))
    keys = ["step", "val", "logz", "grad", "rms", "cosine", "logit", "entropy"]
    state, record = {}, {k: [] for k in keys}
    probes = min(probes, steps)  # an update to probe at each of them
    if probes:
        record.update(update=[], step_size=[], output=[])
    for step in range(steps + 1):
        starts = torch.stack(  # each seed has its own stream of training windows
            [
                torch.randint(len(train_data) - context - 1, (batch,), generator=r)
                for r in data_rng
            ]
        )[member_seed]
        x, y = windows(starts.to(device), context, train_data)
        stacked.zero_grad(set_to_none=True)
        loss_per_model(stacked, x, y, z_loss).sum().backward()  # models independent
        record["grad"].append(  # every step: gradient norm of each block, per model
            torch.stack(
                [
                    sum(p.grad.square().flatten(1).sum(1) for p in b.parameters())
                    for b in stacked.blocks
                ],
                1,
            ).sqrt()
        )
        if step % every == 0 or step == steps:  # record, then update
            record["step"].append(step)
            with torch.no_grad():
                streams, stats = [], []
                out = stacked(vx, streams, stats)
                losses = F.cross_entropy(
                    out.reshape(-1, corpus.V), vy.reshape(-1), reduction="none"
                )
            record["val"].append(losses.view(len(runs), -1).mean(1))
            record["logz"].append(out.logsumexp(-1).mean(1))
            record["rms"].append(
                torch.stack([z.square().mean((1, 2)).sqrt() for z in streams], 1)
            )
            record["cosine"].append(
                torch.stack([token_cosine(z, context) for z in streams], 1)
            )
            record["logit"].append(torch.stack([s[0] for s in stats], 1))
            record["entropy"].append(torch.stack([s[1] for s in stats], 1))
        if step < probes:  # the model before the update, for update_probes
            before = [
                [p.detach().clone() for p in b.parameters()] for b in stacked.blocks
            ]
            with torch.no_grad():
                old = F.log_softmax(stacked(vx), -1)
        if step < steps:
            lr = learning_rate(peak, warm, step + 1, steps)
            adam_step(stacked, state, lr, step + 1)
        if step < probes:
            for key, value in zip(
                ["update", "step_size", "output"],
                update_probes(stacked, before, old, vx, lr),
            ):
                record[key].append(value)
    record = {
        k: torch.as_tensor(np.array(v)) if k == "step" else torch.stack(v).cpu()
        for k, v in record.items()
    }
    return stacked, runs, record
