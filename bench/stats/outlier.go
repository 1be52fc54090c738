package stats

import (
	"fmt"
	"sort"
)

// Rule is an outlier rule for [Filter].
type Rule int

const (
	// None keeps every sample.
	None Rule = iota
	// TenTimesMean drops samples greater than 10 times the mean of all
	// samples: the rule of the seed study S0. It needs non-negative samples.
	TenTimesMean
	// Tukey15 drops samples outside [Q1 − 1.5·IQR, Q3 + 1.5·IQR].
	Tukey15
	// Tukey3 drops samples outside [Q1 − 3·IQR, Q3 + 3·IQR].
	Tukey3
)

// String returns the rule's name as reports print it.
func (r Rule) String() string {
	switch r {
	case None:
		return "none"
	case TenTimesMean:
		return "> 10 x mean"
	case Tukey15:
		return "Tukey 1.5 IQR"
	case Tukey3:
		return "Tukey 3 IQR"
	}
	return fmt.Sprintf("Rule(%d)", int(r))
}

// Filter applies rule to xs and returns the samples kept, in their input
// order, and the number dropped. An empty xs gives (nil, 0, nil).
func Filter(xs []float64, rule Rule) (kept []float64, dropped int, err error) {
	if err := checkFinite(xs); err != nil {
		return nil, 0, err
	}
	if len(xs) == 0 {
		switch rule {
		case None, TenTimesMean, Tukey15, Tukey3:
			return nil, 0, nil
		}
	}
	var lo, hi float64
	switch rule {
	case None:
		return append([]float64(nil), xs...), 0, nil
	case TenTimesMean:
		for i, v := range xs {
			if v < 0 {
				return nil, 0, fmt.Errorf("%w: rule %v needs non-negative samples, value %d is %v", ErrInvalidParameter, rule, i, v)
			}
		}
		m, _ := meanSD(xs)
		lo, hi = 0, 10*m
	case Tukey15, Tukey3:
		k := 1.5
		if rule == Tukey3 {
			k = 3
		}
		s := append([]float64(nil), xs...)
		sort.Float64s(s)
		q1, q3 := quantileSorted(s, 0.25), quantileSorted(s, 0.75)
		iqr := q3 - q1
		lo, hi = q1-k*iqr, q3+k*iqr
	default:
		return nil, 0, fmt.Errorf("%w: unknown outlier rule %d", ErrInvalidParameter, int(rule))
	}
	kept = make([]float64, 0, len(xs))
	for _, v := range xs {
		if v >= lo && v <= hi {
			kept = append(kept, v)
		}
	}
	return kept, len(xs) - len(kept), nil
}
