package server

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// openapiDoc parses the embedded OpenAPI document.
func openapiDoc(t *testing.T) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(openapiJSON, &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	return doc
}

// apiRoute is a method and a path of the API.
type apiRoute struct{ method, path string }

// docRoutes returns the routes the package doc lists under "# API".
func docRoutes(t *testing.T) []apiRoute {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "server.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`^\s*(GET|POST|PUT|PATCH|DELETE)\s+(/.*)$`)
	var out []apiRoute
	for _, l := range strings.Split(f.Doc.Text(), "\n") {
		m := line.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		// "GET /a, /b, /c" lists several paths; "POST /x  {body} → answer" one.
		for _, p := range strings.Split(strings.Fields(strings.ReplaceAll(m[2], ", ", ","))[0], ",") {
			out = append(out, apiRoute{m[1], p})
		}
	}
	if len(out) < 13 {
		t.Fatalf("package doc: found only %d routes: %v", len(out), out)
	}
	return out
}

// codeRoutes returns the routes server.go's routes method registers
// (m.Handle and m.HandleFunc with a "METHOD /path" pattern).
func codeRoutes(t *testing.T) []apiRoute {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "server.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []apiRoute
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || (sel.Sel.Name != "HandleFunc" && sel.Sel.Name != "Handle") {
			return true
		}
		lit, ok := call.Args[0].(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		pattern, err := strconv.Unquote(lit.Value)
		if err != nil {
			t.Fatal(err)
		}
		if method, path, ok := strings.Cut(pattern, " "); ok {
			out = append(out, apiRoute{method, path})
		}
		return true
	})
	if len(out) < 13 {
		t.Fatalf("server.go: found only %d routes: %v", len(out), out)
	}
	return out
}

// specRoutes returns the operations of the document.
func specRoutes(t *testing.T, doc map[string]any) []apiRoute {
	t.Helper()
	paths, ok := doc["paths"].(map[string]any)
	if !ok {
		t.Fatal("openapi.json: no paths")
	}
	var out []apiRoute
	for p, item := range paths {
		for m, o := range item.(map[string]any) {
			if _, ok := o.(map[string]any)["responses"]; ok {
				out = append(out, apiRoute{strings.ToUpper(m), p})
			}
		}
	}
	return out
}

func TestOpenAPIRoutes(t *testing.T) {
	doc := openapiDoc(t)
	if doc["openapi"] != "3.1.0" {
		t.Fatalf("openapi = %v, want 3.1.0", doc["openapi"])
	}
	spec := specRoutes(t, doc)
	for _, r := range docRoutes(t) {
		if !slices.Contains(spec, r) {
			t.Errorf("package doc route %s %s: not in openapi.json", r.method, r.path)
		}
	}
	code := codeRoutes(t)
	for _, r := range code {
		if !slices.Contains(spec, r) {
			t.Errorf("route %s %s (server.go): not in openapi.json", r.method, r.path)
		}
	}
	for _, r := range spec {
		if !slices.Contains(code, r) {
			t.Errorf("openapi.json: %s %s is not a route of server.go", r.method, r.path)
		}
	}
}

// apiCodes returns the values of the Code* constants of api.go.
func apiCodes(t *testing.T) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "api.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if !strings.HasPrefix(name.Name, "Code") || i >= len(vs.Values) {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Fatalf("api.go: %s is not a string literal", name.Name)
				}
				codes[name.Name], _ = strconv.Unquote(lit.Value)
			}
		}
	}
	if len(codes) < 10 {
		t.Fatalf("api.go: found only %d Code constants", len(codes))
	}
	return codes
}

func TestOpenAPIErrorCodes(t *testing.T) {
	doc := openapiDoc(t)
	var enum []string
	ec, _ := jsonPointer(doc, "#/components/schemas/ErrorCode").(map[string]any)
	for _, v := range jsonArray(ec["enum"]) {
		enum = append(enum, v.(string))
	}
	codes := apiCodes(t)
	for name, v := range codes {
		if !slices.Contains(enum, v) {
			t.Errorf("%s = %q: not in ErrorCode's enum", name, v)
		}
	}
	for _, v := range enum {
		found := false
		for _, c := range codes {
			found = found || c == v
		}
		if !found {
			t.Errorf("ErrorCode's enum has %q, which no Code constant of api.go is", v)
		}
	}
	// Every code an answer narrows ErrorCode to (allOf [Error, {code: enum}])
	// is one of the constants too.
	walkJSON(doc, func(m map[string]any) {
		props, _ := m["properties"].(map[string]any)
		errp, _ := props["error"].(map[string]any)
		inner, _ := errp["properties"].(map[string]any)
		code, _ := inner["code"].(map[string]any)
		for _, v := range jsonArray(code["enum"]) {
			if !slices.Contains(enum, v.(string)) {
				t.Errorf("an error answer names code %q, not in ErrorCode", v)
			}
		}
	})
}

// TestOpenAPIRefs checks that every $ref of the document resolves, and
// that every answer of 429 carries Retry-After.
func TestOpenAPIRefs(t *testing.T) {
	doc := openapiDoc(t)
	walkJSON(doc, func(m map[string]any) {
		if ref, ok := m["$ref"].(string); ok && jsonPointer(doc, ref) == nil {
			t.Errorf("$ref %q does not resolve", ref)
		}
	})
	for _, r := range specRoutes(t, doc) {
		op := jsonPointer(doc, "#/paths/"+strings.ReplaceAll(strings.ReplaceAll(r.path, "~", "~0"), "/", "~1")+"/"+strings.ToLower(r.method)).(map[string]any)
		resp, _ := op["responses"].(map[string]any)["429"].(map[string]any)
		if resp == nil {
			continue
		}
		if ref, ok := resp["$ref"].(string); ok {
			resp = jsonPointer(doc, ref).(map[string]any)
		}
		if h, _ := resp["headers"].(map[string]any); h["Retry-After"] == nil {
			t.Errorf("%s %s: 429 without Retry-After", r.method, r.path)
		}
	}
}

func TestOpenAPIServe(t *testing.T) {
	rec := httptest.NewRecorder()
	if err := (&Server{}).openapi(rec, httptest.NewRequest(http.MethodGet, "/v1/openapi.json", nil)); err != nil {
		t.Fatal(err)
	}
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, Content-Type %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	if !json.Valid(rec.Body.Bytes()) || rec.Body.Len() != len(openapiJSON) {
		t.Fatal("the body is not the document")
	}
}

// jsonPointer resolves a local JSON pointer ("#/a/b"), or returns nil.
func jsonPointer(doc map[string]any, ref string) any {
	p, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil
	}
	var cur any = doc
	for _, tok := range strings.Split(p, "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		if cur, ok = m[tok]; !ok {
			return nil
		}
	}
	return cur
}

// walkJSON calls f on every object of v.
func walkJSON(v any, f func(map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		f(v)
		for _, x := range v {
			walkJSON(x, f)
		}
	case []any:
		for _, x := range v {
			walkJSON(x, f)
		}
	}
}

func jsonArray(v any) []any { s, _ := v.([]any); return s }
