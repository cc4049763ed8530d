package report

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/gb-bench/gb/stats"
)

// JSON writes r as indented JSON (two spaces) with a trailing newline: the
// format `gb report`, `gb compare` and `gb merge` read back (see
// [stats.Result]). HTML characters are not escaped.
func JSON(w io.Writer, r *stats.Result) error { return writeJSON(w, r, "json") }

// writeJSON writes v as JSON the way JSON does; what names the output in
// an error.
func writeJSON(w io.Writer, v any, what string) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return fmt.Errorf("report: %s: %w", what, err)
	}
	return nil
}
