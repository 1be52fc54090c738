package server

import (
	_ "embed"
	"net/http"
)

// openapiJSON is the API's OpenAPI 3.1 document (openapi.json), served at
// GET /v1/openapi.json. scripts/openapi-check.sh checks a running server
// against it with schemathesis; openapi_test.go checks that it names every
// route and error code.
//
//go:embed openapi.json
var openapiJSON []byte

// openapi serves the OpenAPI document.
func (s *Server) openapi(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(openapiJSON) // an error here is the client's going away
	return nil
}
