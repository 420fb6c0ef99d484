package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mcpbridge/mcpbridge/internal/store"
)

// unavailable marks connection failures, and only those, with store.ErrUnavailable.
func TestUnavailable(t *testing.T) {
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	for _, c := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{store.ErrNotFound, false},
		{fmt.Errorf("loading: %w", store.ErrConflict), false},
		{&pgconn.PgError{Code: "23505", Message: "duplicate key"}, false},
		{&pgconn.PgError{Code: "42P01", Message: "undefined table"}, false},
		{&pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}, true},
		{&pgconn.PgError{Code: "57P03", Message: "the database system is starting up"}, true},
		{&pgconn.PgError{Code: "08006", Message: "connection failure"}, true},
		{fmt.Errorf("failed to connect: %w", dial), true},
		{fmt.Errorf("failed to receive message: %w", io.ErrUnexpectedEOF), true},
		{context.DeadlineExceeded, false},
	} {
		err := unavailable(c.err)
		if got := errors.Is(err, store.ErrUnavailable); got != c.want {
			t.Errorf("unavailable(%v) is ErrUnavailable: %v, want %v", c.err, got, c.want)
		}
		if c.err != nil && !errors.Is(err, c.err) {
			t.Errorf("unavailable(%v) lost the error: %v", c.err, err)
		}
	}
}
