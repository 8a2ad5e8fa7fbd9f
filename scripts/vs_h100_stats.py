"""The agreement statistics the *_vs_h100.py scripts report for (H100, model) pairs."""
import math


def summary(pairs):
    """pairs: (h100, model) values. Returns (n, MAPE %, geo-mean model/H100, Pearson r of log
    values (nan for fewer than two distinct points, e.g. one workload run alone), count within ±25 %)."""
    n = len(pairs)
    mape = 100 * sum(abs(m - h) / h for h, m in pairs) / n
    geo = math.exp(sum(math.log(m / h) for h, m in pairs) / n)
    lh = [math.log(h) for h, _ in pairs]
    lm = [math.log(m) for _, m in pairs]
    mh, mm = sum(lh) / n, sum(lm) / n
    cov = sum((x - mh) * (y - mm) for x, y in zip(lh, lm))
    spread = math.sqrt(sum((x - mh) ** 2 for x in lh) * sum((y - mm) ** 2 for y in lm))
    r = cov / spread if spread > 0 else float("nan")
    within = sum(0.75 <= m / h <= 1.25 for h, m in pairs)
    return n, mape, geo, r, within
