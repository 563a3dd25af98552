# Chapter 14's code: adaLN-Zero in NumPy (forward and backward), and a small
# class-conditional flow-matching transformer on 14 x 14 MNIST digits with four ways
# for the class to enter it, a digit classifier as the yardstick, and the training loop.
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def adaln_zero_forward(x, c, w, b, w_f, eps=1e-6):
    """One adaLN-Zero sublayer: out = x + gate * (modulate(LN(x)) @ w_f).

    x: tokens (N, T, D); c: one condition vector per example (N, E); w (E, 3D) and
    b (3D,): the modulation layer, whose output silu(c) @ w + b splits into shift,
    scale and gate (N, D) each, in that order (DiT's and diffusers' order); w_f (D, D):
    the sublayer, a linear map here. LN has no affine parameters of its own; the
    modulation is LN(x) * (1 + scale) + shift. Returns (out, cache).
    """
    if x.ndim != 3 or c.ndim != 2 or len(c) != len(x):
        raise ValueError(f"x must be (N, T, D) and c (N, E); got {x.shape}, {c.shape}")
    d = x.shape[-1]
    if w.shape != (c.shape[1], 3 * d) or b.shape != (3 * d,) or w_f.shape != (d, d):
        raise ValueError(f"w {w.shape}, b {b.shape}, w_f {w_f.shape} for D={d}")
    sig = 1 / (1 + np.exp(-c))
    s = c * sig  # SiLU
    shift, scale, gate = np.split(s @ w + b, 3, axis=1)
    mu = x.mean(-1, keepdims=True)
    rstd = 1 / np.sqrt(x.var(-1, keepdims=True) + eps)
    xhat = (x - mu) * rstd
    y = xhat * (1 + scale[:, None]) + shift[:, None]
    f = y @ w_f
    out = x + gate[:, None] * f
    return out, (c, sig, s, w, w_f, xhat, rstd, scale, gate, y, f)


def adaln_zero_backward(dout, cache):
    """Gradients of adaln_zero_forward: (dx, dc, dw, db, dw_f)."""
    c, sig, s, w, w_f, xhat, rstd, scale, gate, y, f = cache
    dgate = (dout * f).sum(1)  # (N, D): the gate multiplies every token's branch
    df = dout * gate[:, None]
    dw_f = np.einsum("ntd,nte->de", y, df)
    dy = df @ w_f.T
    dshift = dy.sum(1)
    dscale = (dy * xhat).sum(1)
    dxhat = dy * (1 + scale[:, None])
    # LayerNorm's backward (chapter 03's compact form), plus the residual path
    dx = dout + rstd * (
        dxhat
        - dxhat.mean(-1, keepdims=True)
        - xhat * (dxhat * xhat).mean(-1, keepdims=True)
    )
    dm = np.concatenate([dshift, dscale, dgate], axis=1)
    dw = s.T @ dm
    db = dm.sum(0)
    dc = (dm @ w.T) * sig * (1 + c * (1 - sig))  # SiLU' = sig + c sig (1 - sig)
    return dx, dc, dw, db, dw_f


# The generative model. Images: 14 x 14 digits (28 x 28 averaged over 2 x 2), scaled to
# [-1, 1], cut into 2 x 2 patches: 49 tokens of 4 values.
SIDE = 14  # pixels a side
PATCH = 2  # pixels a patch side
N_CLASSES = 10
VARIANTS = ["adaLN-Zero", "adaLN", "in-context", "input-add", "unconditional"]


def downsample(images):
    """uint8 (N, 28, 28) -> float32 (N, 14, 14) in [-1, 1]."""
    x = torch.tensor(np.asarray(images), dtype=torch.float32) / 127.5 - 1
    return F.avg_pool2d(x[:, None], 2)[:, 0]


def patchify(x):
    n = x.shape[0]
    g = SIDE // PATCH
    x = x.reshape(n, g, PATCH, g, PATCH).permute(0, 1, 3, 2, 4)
    return x.reshape(n, g * g, PATCH * PATCH)


def unpatchify(tokens):
    n = tokens.shape[0]
    g = SIDE // PATCH
    x = tokens.reshape(n, g, g, PATCH, PATCH).permute(0, 1, 3, 2, 4)
    return x.reshape(n, SIDE, SIDE)


def time_features(t, dim):
    """Sinusoidal features of the time t in [0, 1] (DiT's timestep embedding, on t
    scaled to 0..1000)."""
    half = dim // 2
    freqs = torch.exp(-math.log(10_000) * torch.arange(half) / half)
    args = 1000 * t[:, None] * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


class Block(nn.Module):
    """A pre-norm transformer block. `mode` says how the condition c enters:
    "zero" (adaLN-Zero: shift, scale, gate from c, modulation layer zero at
    initialization), "ada" (adaLN: shift and scale from c, no gate, PyTorch's default
    initialization) or "plain" (a LayerNorm with learned gain and bias; c unused)."""

    def __init__(self, d, heads, mode):
        super().__init__()
        self.mode, self.heads = mode, heads
        affine = mode == "plain"
        self.norm1 = nn.LayerNorm(d, elementwise_affine=affine, eps=1e-6)
        self.norm2 = nn.LayerNorm(d, elementwise_affine=affine, eps=1e-6)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(
            nn.Linear(d, 4 * d), nn.GELU(approximate="tanh"), nn.Linear(4 * d, d)
        )
        if mode != "plain":
            chunks = 6 if mode == "zero" else 4
            self.modulation = nn.Sequential(nn.SiLU(), nn.Linear(d, chunks * d))
            if mode == "zero":
                nn.init.zeros_(self.modulation[1].weight)
                nn.init.zeros_(self.modulation[1].bias)

    def attention(self, h):
        n, t, d = h.shape
        q, k, v = self.qkv(h).view(n, t, 3, self.heads, d // self.heads).unbind(2)
        a = F.scaled_dot_product_attention(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        )
        return self.proj(a.transpose(1, 2).reshape(n, t, d))

    def forward(self, x, c):
        if self.mode == "plain":
            x = x + self.attention(self.norm1(x))
            return x + self.mlp(self.norm2(x))
        m = self.modulation(c)[:, None]
        if self.mode == "zero":
            sh1, sc1, g1, sh2, sc2, g2 = m.chunk(6, dim=-1)
        else:
            (sh1, sc1, sh2, sc2), g1, g2 = m.chunk(4, dim=-1), 1, 1
        x = x + g1 * self.attention(self.norm1(x) * (1 + sc1) + sh1)
        return x + g2 * self.mlp(self.norm2(x) * (1 + sc2) + sh2)


class FlowModel(nn.Module):
    """A class-conditional velocity model v(x_t, t, y) with 2 x 2 patches; y holds
    class labels (N,) or label embeddings (N, d), which can lie between two classes.

    variant: "adaLN-Zero" (DiT's blocks and final layer), "adaLN" (DiT's adaLN
    blocks: no gate, default initialization), "in-context" (the time and the class as
    two extra tokens, plain blocks), "input-add" (time and class embeddings added to
    every input token, plain blocks), "unconditional" (adaLN-Zero with the time
    only: the class is ignored)."""

    def __init__(self, variant, d=48, depth=2, heads=4):
        super().__init__()
        if variant not in VARIANTS:
            raise ValueError(f"variant {variant!r}; expected one of {VARIANTS}")
        self.variant, self.d = variant, d
        n_tokens = (SIDE // PATCH) ** 2
        self.embed = nn.Linear(PATCH * PATCH, d)
        self.pos = nn.Parameter(torch.randn(1, n_tokens, d) * 0.02)
        self.time = nn.Sequential(nn.Linear(64, d), nn.SiLU(), nn.Linear(d, d))
        self.label = nn.Embedding(N_CLASSES, d)
        nn.init.normal_(self.label.weight, std=0.02)  # DiT's label table
        mode = {"adaLN-Zero": "zero", "unconditional": "zero", "adaLN": "ada"}
        mode = mode.get(variant, "plain")
        self.blocks = nn.ModuleList(Block(d, heads, mode) for _ in range(depth))
        self.final_norm = nn.LayerNorm(d, elementwise_affine=mode == "plain", eps=1e-6)
        self.out = nn.Linear(d, PATCH * PATCH)
        if mode != "plain":  # DiT's final layer: shift and scale from c
            self.final_mod = nn.Sequential(nn.SiLU(), nn.Linear(d, 2 * d))
        if mode == "zero":  # zero-initialized, as DiT's
            for layer in (self.final_mod[1], self.out):
                nn.init.zeros_(layer.weight)
                nn.init.zeros_(layer.bias)

    def forward(self, x_t, t, y):
        h = self.embed(patchify(x_t)) + self.pos
        c = t_emb = self.time(time_features(t, 64))
        y_emb = self.label(y) if y.ndim == 1 else y  # labels, or their embeddings
        if self.variant != "unconditional":
            c = t_emb + y_emb
        if self.variant == "input-add":
            h = h + c[:, None]
        if self.variant == "in-context":  # two more tokens, dropped at the end
            h = torch.cat([h, t_emb[:, None], y_emb[:, None]], 1)
        for block in self.blocks:
            h = block(h, c)
        h = self.final_norm(h[:, : self.pos.shape[1]])
        if hasattr(self, "final_mod"):
            shift, scale = self.final_mod(c)[:, None].chunk(2, dim=-1)
            h = h * (1 + scale) + shift
        return unpatchify(self.out(h))


def flow_loss(model, x1, y, generator):
    """Flow matching (a straight path from noise x0 to the data x1): the model's
    velocity at x_t = (1 - t) x0 + t x1 regressed on x1 - x0, t uniform."""
    x0 = torch.randn(x1.shape, generator=generator).to(x1.device)
    t = torch.rand(len(x1), generator=generator).to(x1.device)
    x_t = (1 - t[:, None, None]) * x0 + t[:, None, None] * x1
    return F.mse_loss(model(x_t, t, y), x1 - x0)


def train_flow(variant, data, seed, lr, steps, batch=64, device="cpu", **size):
    """Train one FlowModel with Adam (a linear warm-up over the first 10% of steps,
    then a constant rate). data: (images (N, 14, 14), labels). Returns the model and
    its loss every step. The random draws are made on the CPU on any device."""
    torch.manual_seed(seed)
    model = FlowModel(variant, **size).to(device)
    g = torch.Generator().manual_seed(seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    warmup = max(1, steps // 10)
    images, labels = (a.to(device) for a in data)
    losses = []
    for step in range(steps):
        for group in opt.param_groups:
            group["lr"] = lr * min(1.0, (step + 1) / warmup)
        idx = torch.randint(len(images), (batch,), generator=g)
        loss = flow_loss(model, images[idx], labels[idx], g)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return model, losses


@torch.no_grad()
def sample(model, y, seed, n_steps=20):
    """Euler steps along the model's velocity from noise at t = 0 to t = 1, one
    sample per label (or label embedding) of y."""
    device = next(model.parameters()).device
    g = torch.Generator().manual_seed(seed)
    x = torch.randn((len(y), SIDE, SIDE), generator=g).to(device)
    y = y.to(device)
    for k in range(n_steps):
        t = torch.full((len(y),), k / n_steps, device=device)
        x = x + model(x, t, y) / n_steps
    return x.clamp(-1, 1).cpu()


class Classifier(nn.Module):
    """The yardstick: a small convolutional digit classifier on 14 x 14 images."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Flatten(),
            nn.Linear(32 * 3 * 3, N_CLASSES),
        )

    def forward(self, x):
        return self.net(x[:, None])


def train_classifier(data, seed, steps=600, batch=128, lr=3e-3):
    torch.manual_seed(seed)
    net = Classifier()
    g = torch.Generator().manual_seed(seed)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    images, labels = data
    for _ in range(steps):
        idx = torch.randint(len(images), (batch,), generator=g)
        loss = F.cross_entropy(net(images[idx]), labels[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    return net.eval()


@torch.no_grad()
def class_accuracy(classifier, images, labels):
    """The fraction of images the classifier assigns to their label."""
    return float((classifier(images).argmax(1) == labels).float().mean())


def conditional_accuracy(model, classifier, seed, per_class=50, n_steps=20):
    """Generate per_class samples of each class; the classifier's accuracy on them
    (chance: 10%)."""
    y = torch.arange(N_CLASSES).repeat_interleave(per_class)
    return class_accuracy(classifier, sample(model, y, seed, n_steps), y)
