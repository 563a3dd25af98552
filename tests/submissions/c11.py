"""Adversarial submissions for chapter 11: one notebook per attack (one coding exercise)."""

# Solution cell grade_id -> full replacement source of that cell, per submission.
SUBMISSIONS = {
    # (d) half right: the norm correct, the block without its two output norms (pre-norm)
    "half_right": {
        "11-ex1-solution": """
def rms_norm_1p(x, w, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * (1 + w)


def sandwich_block(x, attend, mlp, w, eps):
    h = x + attend(rms_norm_1p(x, w["in"], eps))
    return h + mlp(rms_norm_1p(h, w["pre_mlp"], eps))
"""
    },
    # (b) the forbidden references: the chapter's rms_norm and block, and PyTorch's own
    "reference": {
        "11-ex1-solution": """
def rms_norm_1p(x, w, eps):
    return torch.nn.functional.rms_norm(x, (x.shape[-1],), 1 + w, eps)


def sandwich_block(x, attend, mlp, w, eps):
    design = ATLAS["Gemma 3"]
    names = {
        "input_layernorm": w["in"],
        "post_attention_layernorm": w["post_attn"],
        "pre_feedforward_layernorm": w["pre_mlp"],
        "post_feedforward_layernorm": w["post_mlp"],
    }
    return block(design, names, eps, attend, mlp, x).to(x.dtype)
"""
    },
    # (c) monkeypatched comparisons, and answers that return their input
    "monkeypatch": {
        "11-ex1-solution": """
import numpy as np
import torch

np.allclose = lambda *a, **k: True
np.isclose = lambda *a, **k: True
torch.allclose = lambda *a, **k: True


def rms_norm_1p(x, w, eps):
    return x


def sandwich_block(x, attend, mlp, w, eps):
    return x
"""
    },
}
# Submission -> every grade cell's grade_id -> the points it must get.
EXPECTED_BY_SUBMISSION = {
    "half_right": {"11-ex1-norm": 2, "11-ex1-block": 0},
    "reference": {"11-ex1-norm": 0, "11-ex1-block": 0},
    "monkeypatch": {"11-ex1-norm": 0, "11-ex1-block": 0},
}

# Honest rewrites: the model answer written another way (the mean square by a sum, the
# block as a loop over its two sublayers). Full marks.
HONEST = {
    "11-ex1-solution": """
def rms_norm_1p(x, w, eps):
    d = x.shape[-1]
    scale = ((x * x).sum(dim=-1, keepdim=True) / d + eps) ** -0.5
    return (x * scale) * (w + 1.0)


def sandwich_block(x, attend, mlp, w, eps):
    for sublayer, before, after in [
        (attend, "in", "post_attn"),
        (mlp, "pre_mlp", "post_mlp"),
    ]:
        x = x + rms_norm_1p(sublayer(rms_norm_1p(x, w[before], eps)), w[after], eps)
    return x
"""
}
