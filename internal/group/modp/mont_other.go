//go:build !amd64 || purego

package modp

// useADX is false: the MULX/ADCX/ADOX code exists only on amd64.
const useADX = false

const haveSelectSSE2 = false

func mulADX(t, x, y *uint, n int)           { panic("modp: no assembly") }
func sqrADX(t, x *uint, n int)              { panic("modp: no assembly") }
func redcADX(z, t, p *uint, n int, n0 uint) { panic("modp: no assembly") }

func ctSelectSSE2(dst, tab, masks *uint, n, entries int) { panic("modp: no assembly") }
