package compare

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/gb-bench/gb/internal/outfile"
)

// WriteText writes the n functions whose value per request grew most and
// the n that shrank most, each with its value per request in both inputs
// and the change.
func (d *ProfileDiff) WriteText(w io.Writer, n int) error {
	fmt.Fprintf(w, "%s per request by function, %s → %s (total %s → %s; runtime frames count for their caller):\n",
		d.Kind.Label, d.Old, d.New, formatValue(d.Kind.Unit, d.OldTotal), formatValue(d.Kind.Unit, d.NewTotal))
	var up, down []FuncDiff
	for _, f := range d.Funcs {
		if f.Delta() > 0 && len(up) < n {
			up = append(up, f)
		}
	}
	for i := len(d.Funcs) - 1; i >= 0 && len(down) < n; i-- {
		if f := d.Funcs[i]; f.Delta() < 0 {
			down = append(down, f)
		}
	}
	return tabulate(w, tabwriter.AlignRight, func(tw io.Writer) {
		fmt.Fprint(tw, "\told\tnew\tchange\t\n")
		for _, part := range []struct {
			what  string
			funcs []FuncDiff
		}{{"more", up}, {"less", down}} {
			if len(part.funcs) == 0 {
				continue
			}
			fmt.Fprintf(tw, "%s per request:\t\t\t\t\n", part.what)
			for _, f := range part.funcs {
				fmt.Fprintf(tw, "\t%s\t%s\t%s%s\t  %s\n", formatValue(d.Kind.Unit, f.Old), formatValue(d.Kind.Unit, f.New),
					sign(f.Delta()), formatValue(d.Kind.Unit, f.Delta()), printable(f.Name))
			}
		}
	})
}

// sign is "+" for a positive change (formatValue writes the minus).
func sign(v float64) string {
	if v > 0 {
		return "+"
	}
	return ""
}

// WriteFiles writes the diff's two profiles into dir (created if needed)
// with mode 0600 as KIND.old.pb.gz and KIND.new.pb.gz, and returns the command that shows
// the change: go tool pprof -diff_base OLD NEW.
func (d *ProfileDiff) WriteFiles(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	var paths []string
	for _, f := range []struct {
		suffix string
		write  func(io.Writer) error
	}{{"old", d.Base.Write}, {"new", d.Profile.Write}} {
		path := filepath.Join(dir, d.Kind.File+"."+f.suffix+".pb.gz")
		if err := outfile.Write(path, 0o600, f.write); err != nil {
			return "", err
		}
		paths = append(paths, path)
	}
	return "go tool pprof -diff_base " + strings.Join(paths, " "), nil
}
