"""The soak's combined verdict: every spot's hold against par in one test, allowing for their
correlation, with a stated false-alarm rate.

Each spot ``s`` of a run gives a deviation from par in cents, ``D_s = house_s - edge_s * handle_s``
(the sum over the rounds of the per-round deviations ``d_is``). Under the par sheet (the table pays
what the par sheet assumes, the players play its strategy) each ``D_s`` has mean 0, and for many
rounds the vector ``D`` is close to normal with covariance ``Sigma``, estimated from the rounds
(the spots of one round are settled on the same cards, so they are correlated). The statistic

    T = D' Sigma^-1 D

(Hotelling's, with the covariance from the rounds) is then chi-square with ``k`` degrees of
freedom, ``k`` the rank of ``Sigma`` (the spots tested, less any exactly dependent on others). The
run fails when ``T`` is above the chi-square's 99.9% point: a table whose par is right fails one
run in 1,000 by chance, whatever the number of spots, instead of the one run in four that five
separate 95% intervals flag.

The chi-square's tail is computed exactly for whole degrees of freedom (closed forms in ``exp``
and ``erfc``), so no statistics library is needed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["ALPHA", "Combined", "chi2_sf", "chi2_quantile", "combined_test"]

ALPHA = 0.001
"""The combined test's false-alarm rate: a run whose par is right fails with this probability."""


def chi2_sf(x: float, k: int) -> float:
    """P(X > x) for X chi-square with ``k`` (>= 1) degrees of freedom, exact for whole ``k``:
    ``exp(-x/2) * sum_{j<k/2} (x/2)^j / j!`` for even ``k``; for odd ``k``,
    ``erfc(sqrt(x/2)) + exp(-x/2) * sum_{j<(k-1)/2} (x/2)^(j+1/2) / Gamma(j+3/2)``."""
    if k < 1:
        raise ValueError(f"chi-square degrees of freedom must be at least 1, not {k}")
    if x <= 0:
        return 1.0
    h = x / 2
    if k % 2 == 0:
        term, total = 1.0, 1.0
        for j in range(1, k // 2):
            term *= h / j
            total += term
        return min(1.0, math.exp(-h) * total)
    term = math.sqrt(h) / math.gamma(1.5)  # (x/2)^(1/2) / Gamma(3/2)
    total = 0.0
    for j in range((k - 1) // 2):
        if j:
            term *= h / (j + 0.5)
        total += term
    return min(1.0, math.erfc(math.sqrt(h)) + math.exp(-h) * total)


def chi2_quantile(p: float, k: int) -> float:
    """The ``x`` with ``P(X <= x) = p`` for chi-square ``X`` on ``k`` degrees of freedom (bisection
    on :func:`chi2_sf` to 1e-10 relative)."""
    if not 0 < p < 1:
        raise ValueError(f"a probability strictly between 0 and 1, not {p}")
    lo, hi = 0.0, float(k) + 10.0
    while chi2_sf(hi, k) > 1 - p:
        hi *= 2
    while hi - lo > 1e-10 * hi:
        mid = (lo + hi) / 2
        if chi2_sf(mid, k) > 1 - p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


@dataclass(frozen=True, slots=True)
class Combined:
    """The combined test's result: the statistic, its degrees of freedom, p-value and limit."""

    statistic: float
    dof: int
    p_value: float
    limit: float
    """The chi-square's ``1 - ALPHA`` point for ``dof``: the statistic fails above it."""
    alpha: float = ALPHA

    @property
    def failed(self) -> bool:
        """The deviations from par are too large to be chance at the stated false-alarm rate."""
        return self.p_value < self.alpha


def combined_test(deviation: npt.ArrayLike, covariance: npt.ArrayLike, alpha: float = ALPHA) -> Combined | None:
    """The chi-square test of ``deviation`` (each spot's ``D_s``) against 0 with ``covariance``
    (``Sigma``, symmetric); directions of ``Sigma`` with no variance (a spot that is a sum of
    others, or never wagered) are dropped and lose their degree of freedom. ``None`` when nothing
    is left to test."""
    d = np.asarray(deviation, dtype=float)
    sigma = np.asarray(covariance, dtype=float)
    if d.ndim != 1 or sigma.shape != (d.size, d.size):
        raise ValueError(f"a deviation of {d.shape} needs a square covariance of its size, not {sigma.shape}")
    if not d.size:
        return None
    values, vectors = np.linalg.eigh((sigma + sigma.T) / 2)
    keep = values > 1e-9 * max(float(values.max()), 0.0)
    if not keep.any():
        return None
    proj = vectors[:, keep].T @ d
    statistic = float(np.sum(proj * proj / values[keep]))
    dof = int(keep.sum())
    return Combined(statistic, dof, chi2_sf(statistic, dof), chi2_quantile(1 - alpha, dof), alpha)
