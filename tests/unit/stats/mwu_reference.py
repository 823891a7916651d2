#!/usr/bin/env python3
# An independent Mann-Whitney U for test_stats_mwu.c's expected values: U by counting the pairs
# (a > b, ties a half), the exact two-sided p by enumerating every way of splitting the pooled
# values (with ties: every split's U against its mean), the normal approximation (tie and continuity
# corrections) from the tie groups' sizes.
# Run it to print the values the unit test holds.
import itertools
import math
from collections import Counter


def u_pairs(a, b):
    return sum((x > y) + 0.5 * (x == y) for x in a for y in b)


def exact_p(a, b):
    u = u_pairs(a, b)
    na, nb = len(a), len(b)
    pooled = a + b
    k = min(u, na * nb - u)
    below = total = 0
    for idx in itertools.combinations(range(na + nb), na):
        chosen = set(idx)
        aa = [pooled[i] for i in idx]
        bb = [pooled[i] for i in range(na + nb) if i not in chosen]
        total += 1
        below += u_pairs(aa, bb) <= k
    return u, min(1.0, 2 * below / total)


def exact_ties_p(a, b):
    """Every split of the pooled values (ties and all) into the two sizes: the share whose U is at
    least as far from its mean as the observed one."""
    u = u_pairs(a, b)
    na, nb = len(a), len(b)
    pooled = a + b
    far = abs(u - na * nb / 2) - 1e-9
    n_far = total = 0
    for idx in itertools.combinations(range(na + nb), na):
        chosen = set(idx)
        aa = [pooled[i] for i in idx]
        bb = [pooled[i] for i in range(na + nb) if i not in chosen]
        total += 1
        n_far += abs(u_pairs(aa, bb) - na * nb / 2) >= far
    return u, n_far / total


def normal_p(a, b):
    u = u_pairs(a, b)
    na, nb = len(a), len(b)
    n = na + nb
    ties = sum(t ** 3 - t for t in Counter(a + b).values())
    var = na * nb / 12 * ((n + 1) - ties / (n * (n - 1)))
    d = abs(u - na * nb / 2) - 0.5
    if var <= 0 or d <= 0:
        return u, 1.0
    return u, math.erfc(d / math.sqrt(var) / math.sqrt(2))


if __name__ == "__main__":
    print("exact", exact_p([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]))
    print("exact", exact_p([1.5, 3, 8, 9, 12], [2, 4, 5, 6, 7, 10]))
    print("exact", exact_p([10, 20, 30], [15, 25, 35]))
    print("exact", exact_p([1, 2, 3], [4, 5, 6]))
    print("exact ties", exact_ties_p([1, 2, 2, 3, 3, 3], [3, 4, 4, 5, 5, 6]))
    print("exact ties", exact_ties_p([5] * 4, [5] * 4))
    print("exact ties", exact_ties_p([10.05], [10] * 19))
    print("exact ties", exact_ties_p([10.05, 10.05], [10] * 9 + [11]))
    print("normal", normal_p([1] * 30 + [2] * 10, [1] * 10 + [2] * 30))
    print("normal", normal_p([2 * i for i in range(30)], [2 * i + 1 for i in range(30)]))
