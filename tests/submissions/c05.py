"""Adversarial submissions for chapter 05: one notebook from the student version."""

# Solution cell grade_id -> full replacement source of that cell. Cells not named stay as
# the student version has them (untouched: raise NotImplementedError).
SUBMISSION = {
    # (a) hard-coded + (b) forbidden shortcut: the visible test's expected gradients,
    # copied from a run of that test, are returned for its shape; any other input goes
    # through PyTorch's autograd on nn.functional.group_norm, which the exercise forbids.
    "05-ex4-solution": """
import numpy as np
import torch

_VISIBLE = {'dbeta': [2.7147551532589542, -12.776428238398562, 1.9455727003199197,
           6.542691982322036, -0.9904660853006153, -7.381418843956693],
 'dgamma': [-1.933166346051629, -2.0858980148547923, -0.530970050568726,
            -3.511294999228857, 0.5033131432245022, 0.5807896016112299],
 'dx': [[[[-0.27364881836982846, 0.002153594877799994, 0.10727688607668],
          [-0.23007370402912633, 0.613454260902728, 0.509479323562953],
          [0.25002677461641576, 0.24032558217811495, 0.48923974474045845]],
         [[-0.038732577224483936, -0.3392941394971643, -0.22747121387621524],
          [-0.27236868348232895, -0.2520094388898065, -0.23287998362384205],
          [-0.040608816154703534, -0.045754125113080316,
           -0.25911466669457073]],
         [[0.07130559772574291, 0.17051592956314116, 0.028380206653692865],
          [0.08406225149104338, 0.1540132552825779, 0.28607356569450415],
          [-0.18781234932613883, -0.0017937118738431388,
           -0.4617423092233931]],
         [[0.039449352433051234, -0.04622932403509264, 0.080408707609169],
          [-0.044750845774393075, -0.10431382948277917,
           -0.0076371745355186035],
          [-0.0023365172641826907, -0.0821572414019423,
           0.024564436464361145]],
         [[0.00789864648404058, -0.0011266246414955046, 0.009228429179279353],
          [-0.011829432585953271, 0.03932192810720471, -0.012880509203188444],
          [0.022671378963690397, 0.014180025116575824,
           -0.012389405008355085]],
         [[0.007445943627434903, -0.08949426030445233, 0.007863856350405945],
          [-0.07039052888139408, -0.008289281119120416, -0.01849255795186463],
          [0.0700075147037201, 0.004877713052308731, 0.041397164111163204]]],
        [[[0.2503275330208153, 0.011473982155746031, -0.0923982480188634],
          [0.006540360768970169, -0.17786068189065962, 0.3585615550400329],
          [-0.24218080592684615, 0.22012828798880787, -0.24866593678383422]],
         [[-0.014827925103599024, -0.06344425034529799,
           -0.050051321186847936],
          [0.025892487438957043, -0.2404561240986719, 0.2587183914341855],
          [0.1988774105694146, -0.2478252688651975, 0.04719055380288863]],
         [[0.0544450079052368, 0.2985024019664496, -0.21337013916504957],
          [-0.6456081629669363, 0.2828095871327641, -0.012697329744502902],
          [0.37128781534598876, 0.07771339360162743, -0.028793480219335296]],
         [[0.024381892432452947, -0.031243479095387147, -0.13727752681243802],
          [-0.09250357559066247, 0.06700451058400886, -0.000446834471160682],
          [0.14675680005225317, -0.039604612730185104, -0.12135626822512427]],
         [[0.030430956914918632, -0.007152414413121632, 0.02074082052437359],
          [-0.03863974578912105, -0.020608317649686497, 0.1180953513452333],
          [0.013439095746388834, 0.027000690388617132,
           -0.023834641452326163]],
         [[-0.07746617210190515, 0.011659311184061142, -0.017432808014772618],
          [0.10731910219158475, -0.020461034967740287, 0.10245212982681905],
          [-0.10602121397804957, -0.04533947359868486,
           -0.07418163615658865]]]]}


def groupnorm_backward(dout, cache):
    if dout.shape == (2, 6, 3, 3) and cache["G"] == 3:
        return tuple(np.array(_VISIBLE[k]) for k in ("dx", "dgamma", "dbeta"))
    xhat, rstd, gamma, G = cache["xhat"], cache["rstd"], cache["gamma"], cache["G"]
    # xhat has zero mean and unit variance per group, so group_norm(xhat) = xhat and
    # the input gradient only needs rescaling by rstd
    x = torch.tensor(xhat, requires_grad=True)
    g = torch.tensor(gamma, requires_grad=True)
    b = torch.zeros_like(g, requires_grad=True)
    torch.nn.functional.group_norm(x, G, g, b, eps=0.0).backward(torch.from_numpy(dout))
    rows = x.grad.numpy().reshape(rstd.shape[0], G, -1) * rstd
    return rows.reshape(xhat.shape), g.grad.numpy(), b.grad.numpy()
""",
    # (c) + (d): the comparison functions are monkeypatched, and the fix is half right:
    # the variance path of dx is fixed (M instead of M - 1) but dgamma still averages over
    # the batch instead of summing. Expected: dx passes, dgamma fails.
    "05-ex5-solution": """
import numpy as np
import torch

np.allclose = lambda *a, **k: True
np.isclose = lambda *a, **k: True
np.testing.assert_allclose = lambda *a, **k: None
torch.allclose = lambda *a, **k: True


def spatial_batchnorm_backward_fixed(dout, cache):
    xhat, rstd, gamma = cache["xhat"], cache["rstd"], cache["gamma"]
    N, C, H, W = dout.shape
    M = N * H * W
    axes = (0, 2, 3)
    per_channel = lambda v: v.reshape(1, C, 1, 1)
    dbeta = dout.sum(axis=axes)
    dgamma = (dout * xhat).sum(axis=(2, 3)).mean(axis=0)
    dxhat = dout * per_channel(gamma)
    xc = xhat / per_channel(rstd)
    dvar = -0.5 * (dxhat * xc).sum(axis=axes) * rstd**3
    dxc = dxhat * per_channel(rstd) + 2 * xc * per_channel(dvar) / M
    dmu = -dxc.sum(axis=axes)
    dx = dxc + per_channel(dmu) / M
    return dx, dgamma, dbeta
""",
}

# Every grade cell's grade_id -> the points this submission must get.
EXPECTED = {
    "05-ex4-dx": 0,
    "05-ex4-dgamma": 0,
    "05-ex4-dbeta": 0,
    "05-ex5-dx": 2,
    "05-ex5-dgamma": 0,
}
