"""Tests over seeds, shared by the chapters that compare arms trained with several
seeds (12, 13 and 14): Student's t for a mean difference, and Holm's correction for a
family of such tests."""

import math


def two_sided_p(t, df):
    # P(|T| >= |t|) for Student's t with df degrees of freedom, in closed form
    # (Abramowitz and Stegun 26.7.3 for an even df, 26.7.4 for an odd one).
    if df < 1 or df != int(df):
        raise ValueError(f"two_sided_p: df must be a whole number >= 1, got {df}")
    theta = math.atan(abs(t) / math.sqrt(df))
    c, s = math.cos(theta), math.sin(theta)
    if df % 2 == 0:  # sin(theta) (1 + 1/2 cos^2 + 1*3/(2*4) cos^4 + ...)
        term = total = 1.0
        for k in range(1, df // 2):
            term *= (2 * k - 1) / (2 * k) * c * c
            total += term
        return 1 - s * total
    if df == 1:  # 2/pi (theta + sin(theta) (cos + 2/3 cos^3 + 2*4/(3*5) cos^5 + ...))
        return 1 - 2 * theta / math.pi
    term = total = c
    for k in range(1, (df - 1) // 2):
        term *= 2 * k / (2 * k + 1) * c * c
        total += term
    return 1 - 2 / math.pi * (theta + s * total)


def holm(pvalues, level=0.05):
    # Holm's step-down method: which tests of a family (a dict of p-values) reject at
    # the family-wise level.
    order = sorted(pvalues, key=pvalues.get)
    kept = dict.fromkeys(pvalues, False)
    for rank, key in enumerate(order):
        if pvalues[key] > level / (len(order) - rank):
            break
        kept[key] = True
    return kept
