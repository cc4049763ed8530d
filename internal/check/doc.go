// Package check tests each response of a run against the user's checks
// (gb --check, gb.Config.Checks): k6's checks written in the style of gb's
// thresholds, one expression each:
//
//	status==200               status in 200,204       status in 200-299
//	status!=500               size>=100               size==6
//	body contains ok          body !contains "error"  body matches ^\{"id":[0-9]+
//	header[Content-Type] contains json                header[X-Cache]==HIT
//
// The grammar, spaces allowed around a symbolic operator and required
// around a word one:
//
//	expr    = subject op value
//	subject = "status" | "size" | "body" | "header[" name "]"
//	op      = "==" | "=" | "!=" | "<" | "<=" | ">" | ">="     (status, size)
//	        | "in" | "!in"                                    (status)
//	        | "==" | "=" | "!="                               (header: the exact value)
//	        | "contains" | "!contains" | "matches" | "!matches" (body, header)
//	value   = number | codes | text
//	codes   = code-or-range {"," code-or-range}, e.g. 200,204 or 200-299
//	text    = the rest of the expression, trimmed of spaces; when it
//	          starts and ends with a double quote it is read as a Go string
//	          literal ("a b", "\r\n", "\\d"), which keeps spaces and
//	          allows escapes; otherwise it is taken as written ("ok":true)
//
// status is the final status code; size the body's length in bytes as
// received (the whole body; with --compressed, before decoding); body the
// body's first MaxBody bytes (a longer body is checked on that prefix);
// header[Name] the values of the header fields of that name (any case):
// a positive operator holds when one of them satisfies it, its negation
// ("!") when none does (a missing header fails ==, contains and matches).
// A regular expression is Go's (RE2) syntax, unanchored.
//
// A Set evaluates all the checks of a run on one response without
// allocating; it needs the body only when a body check is in it
// (NeedsBody) and the header fields only when a header check is
// (NeedsFields).
package check
