package report

// Options are the ab flags that change the layout of the text and HTML
// reports. The zero value is ab's default layout.
type Options struct {
	NoPercentiles bool // -d: no percentile table
	NoConfidence  bool // -S: min/avg/max only, no sd, median or warnings

	// TableAttrs, RowAttrs and CellAttrs are the attributes of the HTML
	// <table>, <tr> and <th>/<td> tags (-x, -y, -z). Empty means ab's
	// defaults: "" for table and tr, "bgcolor=white" for cells.
	TableAttrs, RowAttrs, CellAttrs string
}

// defaultCellAttrs is ab's tdstring default.
const defaultCellAttrs = "bgcolor=white"

// cellAttrs returns the <th>/<td> attributes, ab's default when unset.
func (o Options) cellAttrs() string {
	if o.CellAttrs == "" {
		return defaultCellAttrs
	}
	return o.CellAttrs
}
