package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gb-bench/gb"
	"github.com/gb-bench/gb/internal/getopt"
)

// configFlags names, by the option that sets it, each Config field (or
// field=value) a gb.ConfigError refers to, so that the command line's
// errors speak of flags (TestConfigErrorsNameFlags keeps it complete).
var configFlags = map[string]string{
	"Checks":           "--check",
	"Compressed":       "--compressed",
	"Concurrency":      "-c",
	"ConnectTo":        "--connect-to",
	"Duration":         "-t",
	"Engine":           "--engine",
	"Engine=auto":      "--engine=auto",
	"Engine=goroutine": "--engine=goroutine",
	"FirstByteTimeout": "--first-byte-timeout",
	"HeaderTimeout":    "--header-timeout",
	"Headers":          "-H",
	"IdleTimeout":      "--idle-timeout",
	"LocalAddr":        "-B",
	"MaxDecoded":       "--max-decoded",
	"Order":            "--order",
	"Pipeline":         "--pipeline",
	"Profile.Dir":      "--profile-dir",
	"Profile.Kinds":    "--profile",
	"Profile.URL":      "--profile-url",
	"Protocol":         "--http2/--h2c/--http3",
	"Protocol=h2":      "--http2",
	"Protocol=h2c":     "--h2c",
	"Protocol=h3":      "--http3",
	"Proxy":            "-X",
	"Rate":             "-R",
	"Requests":         "-n",
	"Script":           "--script",
	"SockBuf":          "-b",
	"Shard":            "--shard",
	"Streams":          "--streams",
	"TLS.CAFile":       "--cacert",
	"TLS.CertFile":     "-E",
	"TLS.Ciphers":      "-Z",
	"TLS.NoSNI":        "-I (no SNI)",
	"TLS.Protocol":     "-f",
	"TLS.ServerName":   "--sni",
	"Targeter":         "--lazy",
	"Targets":          "--targets",
	"Timeout":          "-s",
	"URL":              "the URL",
	"UnixSocket":       "--unix-socket",
	"Warmup":           "--warmup",
}

// explain is err's one line in the command line's words: a
// gb.ConfigError names flags where the library names Config fields.
func explain(err error) string {
	msg := oneLine(err.Error())
	if ce, ok := errors.AsType[*gb.ConfigError](err); ok {
		flags := ce.Explain(func(ref string) string { return configFlags[ref] })
		msg = strings.Replace(msg, oneLine(ce.Error()), oneLine(flags), 1)
	}
	return msg
}

// exitCode classifies err: 22 for the command line's mistakes (a
// getopt.Error or a gb.ConfigError), 1 for the rest.
func exitCode(err error) int {
	_, usage := errors.AsType[*getopt.Error](err)
	_, config := errors.AsType[*gb.ConfigError](err)
	if usage || config {
		return exitUsage
	}
	return exitFailure
}

// asUsage makes err a usage error (exit 22).
func asUsage(err error) error {
	if err == nil || exitCode(err) == exitUsage {
		return err
	}
	return getopt.Errorf(false, "%v", err)
}

// failAs prints err as one line after prefix ("gb", "gb ramp"), plus
// usage where ab prints its usage text (usage nil: never), and returns
// the exit code.
func failAs(stderr io.Writer, prefix string, err error, usage func(io.Writer)) int {
	fmt.Fprintf(stderr, "%s: %s\n", prefix, explain(err))
	ue, ok := errors.AsType[*getopt.Error](err)
	abURL := errors.Is(err, gb.ErrInvalidURL) && err.Error() == gb.ErrInvalidURL.Error() // ab's "invalid URL", not a target's
	if usage != nil && ((ok && ue.Usage) || abURL) {
		usage(stderr)
	}
	return exitCode(err)
}

// fail is failAs for ab's mode.
func fail(stderr io.Writer, err error) int { return failAs(stderr, "gb", err, printUsage) }
