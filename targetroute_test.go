package gb_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/testserver"
	"github.com/gb-bench/gb/internal/testsupport"
	"github.com/gb-bench/gb/stats"
)

// TestJSONRecordsRoute: the JSON's target object says where the
// connections went when it was not the URL's host: target.unix_socket
// (--unix-socket, or an http+unix:// URL) and target.connect_to (the
// address the --connect-to rules chose); both are absent otherwise.
func TestJSONRecordsRoute(t *testing.T) {
	sock := filepath.Join(testsupport.SocketDir(t), "gb.sock")
	srv := testsupport.Server(t, testserver.Options{Unix: sock})
	addr := strings.TrimPrefix(srv.URL(), "http://")
	for _, tc := range []struct {
		cfg               gb.Config
		socket, connectTo string
	}{
		{gb.Config{URL: srv.URL() + "/hello"}, "", ""},
		{gb.Config{URL: "http://localhost/hello", UnixSocket: sock}, sock, ""},
		{gb.Config{URL: "http+unix://" + url.PathEscape(sock) + "/hello"}, sock, ""},
		{gb.Config{URL: "http://example.test/hello", ConnectTo: []string{"example.test:80:" + addr}}, "", addr},
		{gb.Config{URL: srv.URL() + "/hello", ConnectTo: []string{"other.test:80:127.0.0.9:1"}}, "", addr}, // no rule matched
	} {
		tc.cfg.Requests = 4
		res, err := gb.Run(context.Background(), tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.Counts.Outcomes[stats.OK] != 4 || res.Load.UnixSocket != tc.socket || res.Load.ConnectTo != tc.connectTo {
			t.Errorf("%s %v: ok %d, unix_socket %q, connect_to %q; want %q %q", tc.cfg.URL, tc.cfg.ConnectTo,
				res.Counts.Outcomes[stats.OK], res.Load.UnixSocket, res.Load.ConnectTo, tc.socket, tc.connectTo)
		}
		var js bytes.Buffer
		if err := json.NewEncoder(&js).Encode(res); err != nil {
			t.Fatal(err)
		}
		var back struct{ Target map[string]any }
		if err := json.Unmarshal(js.Bytes(), &back); err != nil {
			t.Fatal(err)
		}
		for key, want := range map[string]string{"unix_socket": tc.socket, "connect_to": tc.connectTo} {
			if got, ok := back.Target[key]; ok != (want != "") || ok && got != want {
				t.Errorf("%s: JSON target.%s = %v (present %v), want %q", tc.cfg.URL, key, got, ok, want)
			}
		}
	}
}
