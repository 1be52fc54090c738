package cpace

import "bytes"

// This file holds the draft's string utility functions (§6.3 and
// Appendix A). Everything here works on public values except
// generatorString, whose input PRS is secret; its output length depends only
// on len(PRS), which the draft's zero padding (§8.1) deliberately leaves
// observable for PRS longer than one hash block.

// appendLEB128 appends the LEB128 encoding of n (7 bits per byte, least
// significant group first, bit 7 set while more groups follow), as used by
// prepend_len (§6.3, Appendix A.1.1).
func appendLEB128(dst []byte, n int) []byte {
	for n >= 0x80 {
		dst = append(dst, byte(n&0x7f)|0x80)
		n >>= 7
	}
	return append(dst, byte(n))
}

// appendPrependLen appends prepend_len(s) = LEB128(len(s)) || s
// (Appendix A.1.1).
func appendPrependLen(dst, s []byte) []byte {
	return append(appendLEB128(dst, len(s)), s...)
}

// prependLen returns prepend_len(s) (Appendix A.1.1).
func prependLen(s []byte) []byte { return appendPrependLen(nil, s) }

// lenPrefixSize returns len(prepend_len(s)) for a string of n bytes.
func lenPrefixSize(n int) int {
	size := 1
	for n >= 0x80 {
		n >>= 7
		size++
	}
	return size
}

// appendLVCat appends lv_cat(args...) = prepend_len(a0) || prepend_len(a1)
// || ... (Appendix A.1.3).
func appendLVCat(dst []byte, args ...[]byte) []byte {
	for _, a := range args {
		dst = appendPrependLen(dst, a)
	}
	return dst
}

// LVCat returns lv_cat(args...) = prepend_len(a0) || prepend_len(a1) || ...
// (§6.3, Appendix A.1.3), the encoding the draft uses to combine strings.
// Applications may use it to build CI from several fields, as the draft's
// vectors do: CI = lv_cat(b"A_initiator", b"B_responder").
func LVCat(args ...[]byte) []byte { return appendLVCat(nil, args...) }

// generatorString returns generator_string(DSI, PRS, CI, sid, s_in_bytes) =
// lv_cat(DSI, PRS, zero_bytes(len_zpad), CI, sid) with
// len_zpad = max(0, s_in_bytes - 1 - len(prepend_len(PRS)) -
// len(prepend_len(DSI))) (§8.1, Appendix A.2). The padding makes DSI, PRS
// and the padding fill the hash's first input block for short PRS.
func generatorString(dsi, prs, ci, sid []byte, sInBytes int) []byte {
	zpad := max(0, sInBytes-1-lenPrefixSize(len(prs))-len(prs)-lenPrefixSize(len(dsi))-len(dsi))
	return LVCat(dsi, prs, make([]byte, zpad), ci, sid)
}

// lexicographicallyLarger reports whether a > b in the draft's
// lexicographical order (Appendix A.3.1): the first differing byte decides,
// and a proper prefix is the smaller string. It is bytes.Compare.
func lexicographicallyLarger(a, b []byte) bool { return bytes.Compare(a, b) > 0 }

// oCat returns o_cat(a, b) = b"oc" || larger || smaller (Appendix A.3.2).
func oCat(a, b []byte) []byte {
	if !lexicographicallyLarger(a, b) {
		a, b = b, a
	}
	out := make([]byte, 0, 2+len(a)+len(b))
	out = append(out, "oc"...)
	out = append(out, a...)
	return append(out, b...)
}

// transcriptIR returns transcript_ir(Ya, ADa, Yb, ADb) =
// lv_cat(Ya, ADa) || lv_cat(Yb, ADb), the transcript of the
// initiator-responder setting (§6.3, Appendix A.3.4).
func transcriptIR(ya, ada, yb, adb []byte) []byte {
	return appendLVCat(LVCat(ya, ada), yb, adb)
}

// transcriptOC returns transcript_oc(Ya, ADa, Yb, ADb) =
// o_cat(lv_cat(Ya, ADa), lv_cat(Yb, ADb)), the transcript of the symmetric
// setting (§6.3, Appendix A.3.6). It does not depend on which party is "a".
func transcriptOC(ya, ada, yb, adb []byte) []byte {
	return oCat(LVCat(ya, ada), LVCat(yb, adb))
}
