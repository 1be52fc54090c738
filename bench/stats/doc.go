// Package stats is kexlab's one statistics engine: the PAKE comparison, the
// JCE provider study (JMH JSON) and the Android Jetpack imports all
// summarise and compare measurements through it. Standard library only.
//
// Nothing panics and no input slice is modified. Empty or too short samples
// give [ErrTooFewSamples], NaN or ±Inf [ErrNotFinite], bad options
// [ErrInvalidParameter], and two samples that are one repeated value
// [ErrAllTied].
//
// # Outliers
//
// [Filter] applies a [Rule] and returns the kept samples (in input order)
// and the number dropped. [TenTimesMean] is the rule of the seed study S0:
// drop samples greater than 10 times the mean of all samples (one pass; the
// mean includes the outliers; non-negative measures only). [Tukey15] and
// [Tukey3] drop samples outside Tukey's fences [Q1 − k·IQR, Q3 + k·IQR],
// k = 1.5 and 3 (J. W. Tukey, Exploratory Data Analysis, 1977, §2).
//
// # Summary
//
// [Summarize] gives n, mean, sample standard deviation (denominator n−1),
// coefficient of variation SD/|mean|, min, max, quartiles, IQR, median and
// the median's confidence interval.
//
// Quantiles ([Quantile]) are definition 7 of R. J. Hyndman and Y. Fan,
// "Sample quantiles in statistical packages", Amer. Statist. 50(4), 1996,
// the default of R and NumPy: for sorted x₍₁₎ ≤ … ≤ x₍ₙ₎ and h = (n−1)p + 1,
// Q(p) = x₍⌊h⌋₎ + (h−⌊h⌋)·(x₍⌊h⌋+1₎ − x₍⌊h⌋₎).
//
// The median interval ([MedianCI]) is the distribution-free order-statistic
// interval [x₍l₎, x₍n+1−l₎] (W. J. Conover, Practical Nonparametric
// Statistics, 3rd ed., 1999, §3.2), whose coverage for any continuous
// distribution is 1 − 2·P(B ≤ l−1), B ~ Binomial(n, ½). The binomial tail is
// computed exactly (from the pmf, in float64) for every n, and l is the
// largest index whose coverage reaches the level. When none does (n ≤ 5 at
// 95%), the interval is [min, max] with its actual coverage 1 − 2^(1−n).
// [Interval].Level always holds the coverage achieved.
//
// # Two samples
//
// [MannWhitney] is the Wilcoxon rank-sum / Mann–Whitney U test (F. Wilcoxon,
// Biometrics Bull. 1(6), 1945; H. B. Mann and D. R. Whitney, Ann. Math.
// Statist. 18(1), 1947) computed as R's wilcox.test(x, y) does by default:
//
//   - U1 = #{xᵢ > yⱼ} + ½·#{xᵢ = yⱼ} (R's W) from mid-ranks; U2 = n1·n2 − U1.
//   - Exact p-value when both samples have fewer than 50 observations and
//     there are no ties: the null distribution of U by the recurrence
//     N(u; m, n) = N(u−n; m−1, n) + N(u; m, n−1) (Mann and Whitney 1947) as
//     dynamic programming; two-sided p = min(1, 2·min(P(U ≤ U1), P(U ≥ U1))).
//   - Otherwise the normal approximation with the tie correction
//     σ² = n1·n2/12·((N+1) − Σ(t³−t)/(N(N−1))) over the tie groups t of the
//     pooled sample, and the continuity correction ½ (R's correct = TRUE).
//
// It also returns Cliff's delta δ = (U1 − U2)/(n1·n2) (N. Cliff, Psychol.
// Bull. 114(3), 1993), the Vargha–Delaney A = U1/(n1·n2) = (δ+1)/2 (A.
// Vargha and H. D. Delaney, J. Educ. Behav. Stat. 25(2), 2000), and the
// Hodges–Lehmann shift, the median of the n1·n2 differences xᵢ − yⱼ (J. L.
// Hodges and E. L. Lehmann, Ann. Math. Statist. 34(2), 1963), with the
// distribution-free interval [d₍k₎, d₍n1·n2+1−k₎] of the sorted differences
// (Moses; Hollander, Wolfe and Chicken, Nonparametric Statistical Methods,
// 3rd ed., 2014, §4.3), as R's wilcox.test(conf.int = TRUE):
//
//   - Exact distribution: k = max(1, qwilcox(α/2, n1, n2)), coverage exactly
//     1 − 2·P(U ≤ k−1), below the level when even k = 1 falls short.
//   - Normal approximation: k = ⌈n1·n2/2 − c − z·σw⌉ with z the normal
//     quantile, c the continuity correction and σw the σ above with only the
//     ties within x and within y (those that survive a shift). R solves for
//     the shifts with uniroot (tol 1e-4); its standardised statistic is a
//     step function of the shift jumping at the differences, so the roots
//     are these order statistics, to that tolerance.
//
// The estimate is always the median of the differences (in the approximate
// case R reports a root instead: the same value to 1e-4 when n1·n2 is odd,
// anywhere between the two middle differences when even). The differences
// are never stored: the k-th smallest is found by bisection over ordered
// float64 values with a two-pointer count, 64·(n1+n2) steps.
//
// # Families of comparisons
//
// [Holm] is S. Holm's step-down adjustment (Scand. J. Statist. 6(2), 1979)
// as R's p.adjust(p, "holm"): the i-th smallest p becomes
// min(1, max_{j≤i} (m−j+1)·p₍ⱼ₎). [Decide] turns a family of comparisons
// against a baseline into [Better], [Worse] or [NoDifference] for measures
// where lower is better: significant when the adjusted p is at most α, in
// the direction of the sign of Cliff's delta.
package stats
