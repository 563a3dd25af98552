"""Tests over seeds, shared by the chapters that compare arms trained with several
seeds (13 and 14): Student's t for a mean difference, and Holm's correction for a
family of such tests."""

import math


def two_sided_p(t, df):
    # P(|T| >= |t|) for Student's t with an even number df of degrees of freedom, in
    # closed form (Abramowitz and Stegun 26.7.3).
    if df % 2:
        raise ValueError(f"two_sided_p: df must be even, got {df}")
    theta = math.atan(abs(t) / math.sqrt(df))
    term = total = 1.0
    for k in range(1, df // 2):
        term *= (2 * k - 1) / (2 * k) * math.cos(theta) ** 2
        total += term
    return 1 - math.sin(theta) * total


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
