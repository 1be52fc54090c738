package numfmt

import "testing"

func TestFormats(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Ns(0), "0 ns"},
		{Ns(999), "999 ns"},
		{Ns(1500), "1.5 µs"},
		{Ns(2.5e6), "2.5 ms"},
		{Ns(12345678901), "12.3 s"},
		{Ns(-1500), "−1.5 µs"},
		{Num(2.92749), "2.927"},
		{Num(123456), "1.235e+05"},
		{Bytes(999), "999 B"},
		{Bytes(1234), "1.23 kB"},
		{Bytes(5e6), "5 MB"},
		{Bytes(7.5e9), "7.5 GB"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
