package fault

// Limits and helpers that the external tests (package fault_test) check.
const (
	MaxLine   = maxLine
	MaxFields = maxFields
	LongLine  = longLine
	MinPad    = minPad
)

var (
	PadHead = padHead
	Garbage = garbage
)
