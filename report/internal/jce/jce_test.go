package jce

import (
	"testing"

	"github.com/kexlab/kexlab/bench"
)

// Names as the JMH importer writes them for jvm/'s PrimitiveBench.
const (
	rsaDecrypt = "PrimitiveBench.run:avgt[algorithm=RSA,dataLength=100,keySize=2048,op=decrypt,provider=BC,transformation=RSA/ECB/PKCS1Padding]"
	aesDefault = "PrimitiveBench.run:avgt[algorithm=AES,dataLength=100,keySize=128,op=encrypt,provider=BC,transformation=AES]"
	aesKeygen  = "PrimitiveBench.run:avgt[algorithm=AES,dataLength=0,keySize=128,op=keygen,provider=JDK,transformation=AES]"
)

func TestParse(t *testing.T) {
	c, ok := Parse(rsaDecrypt)
	want := Case{Scheme: rsaDecrypt, Provider: "BC", Algorithm: "RSA", KeySize: 2048,
		Transformation: "RSA/ECB/PKCS1Padding", DataLength: 100, Op: "decrypt"}
	if !ok || c != want || c.Default() {
		t.Errorf("%+v %v", c, ok)
	}
	if c, _ := Parse(aesDefault); !c.Default() {
		t.Error("AES is a default transformation")
	}
	if c, ok := Parse(aesKeygen); !ok || c.Default() {
		t.Error("a key generator is no default cipher transformation")
	}
	for _, bad := range []string{"", "x", "a.b:avgt[provider=BC]", "a[provider=BC,algorithm=AES,keySize=x,transformation=AES,dataLength=1,op=encrypt]", "a[b]"} {
		if _, ok := Parse(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestCases(t *testing.T) {
	r := &bench.Results{Schemes: []bench.SchemeInfo{{Name: "Other.bench:avgt"}, {Name: aesDefault}, {Name: "spake2"}, {Name: rsaDecrypt}}}
	if cs := Cases(r); len(cs) != 2 || cs[0].Scheme != aesDefault || cs[1].Scheme != rsaDecrypt {
		t.Errorf("cases %+v", cs)
	}
	if cs := Cases(&bench.Results{}); cs != nil {
		t.Errorf("cases of an empty run %+v", cs)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(rsaDecrypt)
	f.Add("a[=,=]")
	f.Fuzz(func(t *testing.T, s string) {
		if c, ok := Parse(s); ok && (c.Provider == "" || c.Op == "" || c.Scheme != s) {
			t.Fatalf("%q → %+v", s, c)
		}
	})
}

func TestDefaultAndFamily(t *testing.T) {
	for _, c := range []struct {
		c      Case
		def    bool
		family string
	}{
		{Case{Algorithm: "AES", Transformation: "AES", Op: "encrypt"}, true, "symmetric encryption"},
		{Case{Algorithm: "AES", Transformation: "AES/GCM/NoPadding", Op: "decrypt"}, false, "symmetric encryption"},
		{Case{Algorithm: "RSA", Transformation: "RSA", Op: "encrypt"}, true, "RSA encryption"},
		{Case{Algorithm: "RSA", Transformation: "NONEwithRSA", Op: "sign"}, true, "signatures"},
		{Case{Algorithm: "DSA", Transformation: "SHA1withDSA", Op: "verify"}, true, "signatures"},
		{Case{Algorithm: "RSA", Transformation: "SHA256withRSA", Op: "sign"}, false, "signatures"},
		{Case{Algorithm: "HmacSHA1", Transformation: "HmacSHA1", Op: "mac"}, false, "MACs"},
		{Case{Algorithm: "DSA", Transformation: "AlgorithmParameterGenerator", Op: "keygen"}, false, "key generation"},
	} {
		if c.c.Default() != c.def || c.c.Family() != c.family {
			t.Errorf("%+v: default %v family %q", c.c, c.c.Default(), c.c.Family())
		}
	}
}
