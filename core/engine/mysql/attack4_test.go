package mysql_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/tablewise/tablewise/core/engine"
	twmysql "github.com/tablewise/tablewise/core/engine/mysql"
	"github.com/tablewise/tablewise/core/testdb"
)

// TestPasswordWithSlashIsRefusedUnshown: a URL parser ends the user
// information at an unencoded / ? or # in the password, and its error
// ("invalid port \":S3C\" after host") quoted the password's first
// characters. The URL is refused before it is parsed, saying how to write
// the password, and no piece of it is shown.
func TestPasswordWithSlashIsRefusedUnshown(t *testing.T) {
	for _, raw := range []string{
		"mysql://root:S3C/RET@127.0.0.1/x",
		"mysql://root:S3C#RET@127.0.0.1/x",
		"mysql://root:S3C?RET@127.0.0.1:3306/x",
		"mysql://root:123/RET@127.0.0.1/x",
	} {
		_, err := twmysql.Config(raw)
		testdb.RefusedUnshown(t, raw, err, "S3C", "RET", "123")
	}
	// An @ in a MySQL password is read whole: the parser takes the last one.
	cfg, err := twmysql.Config("mysql://root:S3C@RET@127.0.0.1/x")
	if err != nil || cfg.Passwd != "S3C@RET" || cfg.Addr != "127.0.0.1:3306" {
		t.Errorf("password with @: %+v %v", cfg, err)
	}
}

// TestSilentServerEndsAtTheConnectTimeout: a server that accepts the TCP
// connection and never sends its handshake (a hung server, a port that is
// not MySQL's) held Open, and so every command but the ones with a
// deadline of their own, for ever: the dial timeout ends at the accept.
// Connecting, handshake and login included, ends within the URL's
// timeout, naming the server as unavailable.
func TestSilentServerEndsAtTheConnectTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	raw := "mysql://u:s3cret@" + ln.Addr().String() + "/shop?timeout=1s"
	start := time.Now()
	err = testdb.Within(t, 15*time.Second, func() error {
		_, err := twmysql.Open(context.Background(), raw, engine.Options{})
		return err
	})
	if took := time.Since(start); took > 4*time.Second {
		t.Errorf("Open took %v, want about the 1s timeout", took)
	}
	if !errors.Is(err, engine.ErrUnavailable) || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("err = %v, want the server unavailable, without the password", err)
	}
}
