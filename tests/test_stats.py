"""The tests over seeds that chapters 12, 13 and 14 share (normbook/stats.py)."""

import pytest

from normbook.stats import holm, two_sided_p


@pytest.mark.static
@pytest.mark.parametrize(
    "t, df, p",  # Student's t table: the two-sided 5 % and 1 % points
    [
        *[(12.7062, 1, 0.05), (4.3027, 2, 0.05), (3.1824, 3, 0.05), (2.7764, 4, 0.05)],
        *[(2.5706, 5, 0.05), (4.0321, 5, 0.01), (2.4469, 6, 0.05), (3.7074, 6, 0.01)],
        (2.3646, 7, 0.05),
    ],
)
def test_two_sided_p_matches_the_t_table(t, df, p):
    assert two_sided_p(t, df) == pytest.approx(p, abs=2e-5)
    assert two_sided_p(-t, df) == two_sided_p(t, df)
    assert two_sided_p(0.0, df) == pytest.approx(1.0)


@pytest.mark.static
@pytest.mark.parametrize("df", [0, 2.5])
def test_two_sided_p_rejects_degrees_of_freedom_it_has_no_formula_for(df):
    with pytest.raises(ValueError, match="whole number"):
        two_sided_p(2.0, df)


@pytest.mark.static
def test_holm_steps_down_and_stops_at_the_first_failure():
    # 0.01 <= 0.05/4 rejects, 0.02 <= 0.05/3 does not: nothing after it rejects,
    # although 0.03 would pass on its own at 0.05/2
    p = {"a": 0.01, "b": 0.02, "c": 0.03, "d": 0.5}
    assert holm(p) == {"a": True, "b": False, "c": False, "d": False}
    assert holm({"a": 0.004, "b": 0.02, "c": 0.024}) == dict.fromkeys("abc", True)
