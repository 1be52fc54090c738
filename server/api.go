package server

import (
	"github.com/kexlab/kexlab/server/internal/wire"

	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxBody is the largest request body the API reads.
const MaxBody = 16 << 10

// MaxUser is the longest account name, in bytes (UTF-8).
const MaxUser = 256

// Error codes: stable strings a client can switch on. Every error answer
// is {"error": {"code": ..., "message": ...}}.
const (
	CodeBadRequest    = "bad_request"    // malformed JSON, field or encoding
	CodeTooLarge      = "too_large"      // body over MaxBody
	CodeUnknownScheme = "unknown_scheme" // scheme not offered
	CodeBadMessage    = "bad_message"    // a PAKE message that does not parse
	CodeUnknownFlow   = "unknown_flow"   // handle unknown, expired or already used
	CodeAuthFailed    = "auth_failed"    // wrong password (or unknown user)
	CodeUserExists    = "user_exists"    // registration of a taken name
	CodeRateLimited   = "rate_limited"   // 429, with Retry-After
	CodeUnauthorized  = "unauthorized"   // no valid session
	CodeStaleSession  = "stale_session"  // needs a fresh login
	CodeNotFound      = "not_found"      // no such route
	CodeMethod        = "method_not_allowed"
	CodeUnavailable   = "unavailable" // the store or the dispatcher cannot take it now
	CodeInternal      = "internal"
)

// apiError is an error with an HTTP status and a stable code.
type apiError struct {
	status     int
	code, msg  string
	retryAfter time.Duration
}

func (e *apiError) Error() string { return e.code + ": " + e.msg }

func errorf(status int, code, format string, args ...any) *apiError {
	return &apiError{status: status, code: code, msg: fmt.Sprintf(format, args...)}
}

func badRequest(format string, args ...any) *apiError {
	return errorf(http.StatusBadRequest, CodeBadRequest, format, args...)
}

// errorBody is the JSON of an error answer.
type errorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// writeError answers err: an *apiError as it says, anything else as 500
// with no detail (the detail goes to the log).
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var ae *apiError
	if !errors.As(err, &ae) {
		s.log.Error("request failed", "path", r.URL.Path, "err", err)
		ae = errorf(http.StatusInternalServerError, CodeInternal, "internal error")
	}
	if ae.retryAfter > 0 {
		w.Header().Set("Retry-After", fmt.Sprint(int((ae.retryAfter+time.Second-1)/time.Second)))
	}
	var body errorBody
	body.Error.Code, body.Error.Message = ae.code, ae.msg
	writeJSON(w, ae.status, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// decode reads a JSON body of at most MaxBody bytes into v, refusing
// unknown fields, trailing data and a content type other than JSON.
func decode(w http.ResponseWriter, r *http.Request, v any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		return errorf(http.StatusUnsupportedMediaType, CodeBadRequest, "content type %q, want application/json", ct)
	}
	body := http.MaxBytesReader(w, r.Body, MaxBody)
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return errorf(http.StatusRequestEntityTooLarge, CodeTooLarge, "body over %d bytes", MaxBody)
		}
		return badRequest("body: %v", jsonMessage(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return badRequest("body: data after the JSON object")
	}
	return nil
}

// jsonMessage shortens encoding/json's errors to what a client needs.
func jsonMessage(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("invalid JSON at byte %d", syn.Offset)
	case errors.As(err, &typ):
		return fmt.Sprintf("field %q: want %s", typ.Field, typ.Type)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "empty or truncated JSON"
	}
	return err.Error()
}

// bytesField is a byte string carried as unpadded base64url in JSON.
type bytesField = wire.Bytes

// checkUser validates an account name: 1 to MaxUser bytes of UTF-8 with
// no control characters. (Normalisation, e.g. case folding, is the
// application's: the service compares names byte for byte.)
func checkUser(u string) error {
	if u == "" || len(u) > MaxUser || !utf8.ValidString(u) {
		return badRequest("user: 1 to %d bytes of UTF-8", MaxUser)
	}
	for _, r := range u {
		if r < 0x20 || r == 0x7f {
			return badRequest("user: control character")
		}
	}
	return nil
}
