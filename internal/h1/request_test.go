package h1

import (
	"errors"
	"strings"
	"testing"
)

func TestRequestAppend(t *testing.T) {
	tests := []struct {
		name string
		req  Request
		want string
	}{
		{
			name: "get defaults",
			req:  Request{Host: "example.com"},
			want: "GET / HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n\r\n",
		},
		{
			name: "get with target and user agent",
			req:  Request{Method: "GET", Target: "/a/b?q=1&r=%20", Host: "example.com:8080", UserAgent: "gb/1.0"},
			want: "GET /a/b?q=1&r=%20 HTTP/1.1\r\nHost: example.com:8080\r\nUser-Agent: gb/1.0\r\nAccept: */*\r\n\r\n",
		},
		{
			name: "head",
			req:  Request{Method: "HEAD", Target: "/x", Host: "h"},
			want: "HEAD /x HTTP/1.1\r\nHost: h\r\nAccept: */*\r\n\r\n",
		},
		{
			name: "absolute target through a proxy",
			req:  Request{Target: "http://origin.example/x", Host: "origin.example"},
			want: "GET http://origin.example/x HTTP/1.1\r\nHost: origin.example\r\nAccept: */*\r\n\r\n",
		},
		{
			name: "post with body and default content type",
			req:  Request{Method: "POST", Target: "/submit", Host: "h", Body: []byte("hello")},
			want: "POST /submit HTTP/1.1\r\nHost: h\r\nAccept: */*\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello",
		},
		{
			name: "post with content type",
			req:  Request{Method: "POST", Host: "h", Body: []byte(`{"a":1}`), ContentType: "application/json"},
			want: "POST / HTTP/1.1\r\nHost: h\r\nAccept: */*\r\nContent-Length: 7\r\nContent-Type: application/json\r\n\r\n{\"a\":1}",
		},
		{
			name: "post with a large body",
			req:  Request{Method: "PUT", Host: "h", Body: []byte(strings.Repeat("z", 12345))},
			want: "PUT / HTTP/1.1\r\nHost: h\r\nAccept: */*\r\nContent-Length: 12345\r\nContent-Type: text/plain\r\n\r\n" + strings.Repeat("z", 12345),
		},
		{
			name: "empty non-nil body",
			req:  Request{Method: "POST", Host: "h", Body: []byte{}},
			want: "POST / HTTP/1.1\r\nHost: h\r\nAccept: */*\r\nContent-Length: 0\r\nContent-Type: text/plain\r\n\r\n",
		},
		{
			name: "user headers replace host user agent and accept",
			req: Request{Host: "h", UserAgent: "gb/1.0", Headers: []Header{
				{"X-First", "1"}, {"host", "virtual.example"}, {"USER-AGENT", "custom"}, {"Accept", "application/json"}, {"X-Last", "a: b"},
			}},
			want: "GET / HTTP/1.1\r\nX-First: 1\r\nhost: virtual.example\r\nUSER-AGENT: custom\r\nAccept: application/json\r\nX-Last: a: b\r\n\r\n",
		},
		{
			name: "user content type replaces the default",
			req:  Request{Method: "POST", Host: "h", Body: []byte("{}"), Headers: []Header{{"content-type", "application/json"}}},
			want: "POST / HTTP/1.1\r\nHost: h\r\nAccept: */*\r\nContent-Length: 2\r\ncontent-type: application/json\r\n\r\n{}",
		},
		{
			name: "user content type without a body",
			req:  Request{Host: "h", Headers: []Header{{"Content-Type", "text/html"}}},
			want: "GET / HTTP/1.1\r\nHost: h\r\nAccept: */*\r\nContent-Type: text/html\r\n\r\n",
		},
		{
			name: "close",
			req:  Request{Host: "h", UserAgent: "ua", Close: true, Method: "POST", Body: []byte("x"), Headers: []Header{{"Authorization", "Bearer a:b"}}},
			want: "POST / HTTP/1.1\r\nHost: h\r\nUser-Agent: ua\r\nAccept: */*\r\nConnection: close\r\nContent-Length: 1\r\nContent-Type: text/plain\r\nAuthorization: Bearer a:b\r\n\r\nx",
		},
		{
			name: "empty value",
			req:  Request{Host: "h", Headers: []Header{{"X-Empty", ""}}},
			want: "GET / HTTP/1.1\r\nHost: h\r\nAccept: */*\r\nX-Empty: \r\n\r\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.req.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			if got := string(tt.req.Append(nil)); got != tt.want {
				t.Errorf("Append:\n got %q\nwant %q", got, tt.want)
			}
			// Append appends: a prefix in dst is kept.
			if got := string(tt.req.Append([]byte("prefix"))); got != "prefix"+tt.want {
				t.Errorf("Append to a non-empty slice:\n got %q\nwant %q", got, "prefix"+tt.want)
			}
			if got, want := tt.req.IsHead(), tt.req.Method == "HEAD"; got != want {
				t.Errorf("IsHead() = %v, want %v", got, want)
			}
		})
	}
}

// TestRequestAppendParses checks that what Append builds is one request as
// a server would frame it: the body is exactly Content-Length bytes.
func TestRequestAppendParses(t *testing.T) {
	req := Request{Method: "POST", Target: "/p", Host: "h", Body: []byte("0123456789"), Headers: []Header{{"X-A", "1"}}}
	b := string(req.Append(nil))
	head, body, ok := strings.Cut(b, "\r\n\r\n")
	if !ok || body != "0123456789" || !strings.Contains(head, "\r\nContent-Length: 10") {
		t.Fatalf("Append = %q", b)
	}
}

func TestRequestValidate(t *testing.T) {
	tests := []struct {
		name      string
		req       Request
		badHeader bool // the error wraps ErrBadHeader
	}{
		{name: "method with space", req: Request{Method: "GE T"}},
		{name: "method with CR", req: Request{Method: "GET\r"}},
		{name: "method with slash", req: Request{Method: "GET/"}},
		{name: "target with space", req: Request{Target: "/a b"}},
		{name: "target with CR", req: Request{Target: "/a\r"}},
		{name: "target with LF", req: Request{Target: "/a\nX-Injected: 1"}},
		{name: "target with NUL", req: Request{Target: "/a\x00"}},
		{name: "host with space", req: Request{Host: "a b"}},
		{name: "host with CRLF", req: Request{Host: "h\r\nX-Injected: 1"}},
		{name: "host with NUL", req: Request{Host: "h\x00"}},
		{name: "empty header name", req: Request{Headers: []Header{{"", "v"}}}, badHeader: true},
		{name: "header name with space", req: Request{Headers: []Header{{"Bad Name", "v"}}}, badHeader: true},
		{name: "header name with colon", req: Request{Headers: []Header{{"X:Y", "v"}}}, badHeader: true},
		{name: "header name with CRLF", req: Request{Headers: []Header{{"X\r\nY", "v"}}}, badHeader: true},
		{name: "header name with high byte", req: Request{Headers: []Header{{"X-\xc3\xa9", "v"}}}, badHeader: true},
		{name: "header value with CR", req: Request{Headers: []Header{{"X", "a\rb"}}}, badHeader: true},
		{name: "header value with LF", req: Request{Headers: []Header{{"X", "a\nX-Injected: 1"}}}, badHeader: true},
		{name: "header value with NUL", req: Request{Headers: []Header{{"X", "a\x00"}}}, badHeader: true},
		{name: "content type with LF", req: Request{ContentType: "text/plain\nX: 1"}, badHeader: true},
		{name: "user agent with NUL", req: Request{UserAgent: "gb\x00"}, badHeader: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.req.Validate()
			if err == nil {
				t.Fatalf("Validate(%+v) = nil, want an error", tt.req)
			}
			if errors.Is(err, ErrBadHeader) != tt.badHeader {
				t.Errorf("errors.Is(%v, ErrBadHeader) = %v, want %v", err, !tt.badHeader, tt.badHeader)
			}
		})
	}

	valid := []Request{
		{},
		{Method: "PROPFIND", Target: "*", Host: "[::1]:8080"},
		{Method: "M-SEARCH", Headers: []Header{{"X-Tab", "a\tb"}, {"X-UTF8", "caf\xc3\xa9"}, {"!#$%&'*+-.^_`|~", ""}}},
	}
	for _, r := range valid {
		if err := r.Validate(); err != nil {
			t.Errorf("Validate(%+v) = %v, want nil", r, err)
		}
	}
}
