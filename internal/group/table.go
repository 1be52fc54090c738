package group

// TEMPORARY placeholder, replaced by a precomputed fixed-base table.

// Table holds precomputed multiples of a fixed point for fast constant-time
// multiplication by that point.
type Table struct{ base *Point }

// NewTable precomputes the table for q.
func NewTable(q *Point) *Table { return &Table{base: NewPoint().Set(q)} }

// Mult sets p = s*T.base and returns p.
func (p *Point) TableMult(s *Scalar, t *Table) *Point { return p.ScalarMult(s, t.base) }
