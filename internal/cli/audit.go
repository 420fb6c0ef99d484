package cli

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/store"
)

// auditFollowEvery is how often `audit tail --follow` asks the store for new rows.
const auditFollowEvery = 500 * time.Millisecond

// runAudit reads the audit log of the store that serve uses.
func runAudit(ctx context.Context, e *env, args []string) error {
	usage := func() error {
		fmt.Fprintln(e.stderr, "Usage: mcpbridge audit tail [--config FILE | --store URL] [--server NAME] [--principal USER] [-n N] [--follow]")
		return errUsage
	}
	if len(args) == 0 {
		return usage()
	}
	switch args[0] {
	case "tail":
		return auditTail(ctx, e, args[1:])
	case "-h", "--help", "help":
		usage()
		return nil
	}
	fmt.Fprintf(e.stderr, "mcpbridge audit: unknown subcommand %q\n", args[0])
	return usage()
}

func auditTail(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "audit tail", "[--config FILE | --store URL] [--server NAME] [--principal USER] [-n N] [--follow]")
	var sf storeFlags
	sf.add(fs, "config file (as for serve; its store is read)")
	server := fs.String("server", "", "only the calls of this server")
	principal := fs.String("principal", "", "only the calls of this user id")
	n := fs.Int("n", 20, "how many of the newest rows to print first (at most "+strconv.Itoa(store.MaxAuditLimit)+")")
	follow := fs.Bool("follow", false, "keep printing new rows as they are recorded, until interrupted")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 || *n < 0 {
		return usageError(e, fs, pos, "-n must not be negative")
	}
	st, _, _, err := sf.openExisting(ctx, e)
	if err != nil {
		return err
	}
	defer st.Close()
	f := store.AuditFilter{Server: *server, Principal: *principal, Limit: *n}
	var last int64
	if *n > 0 {
		rows, err := st.Audit.List(ctx, f)
		if err != nil {
			return err
		}
		last = printAudit(e.stdout, rows) // the store lists newest first; this prints by time
	} else if *follow {
		// Start after the newest row: nothing old is printed.
		rows, err := st.Audit.List(ctx, store.AuditFilter{Server: *server, Principal: *principal, Limit: 1})
		if err != nil {
			return err
		}
		if len(rows) > 0 {
			last = rows[0].ID
		}
	}
	if !*follow {
		return nil
	}
	// Page through what arrived since the last poll oldest first, so a burst of more rows
	// than a page holds is printed whole.
	f.Limit, f.OldestFirst = store.MaxAuditLimit, true
	t := time.NewTicker(auditFollowEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		for {
			f.AfterID = last
			rows, err := st.Audit.List(ctx, f)
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return err
			}
			last = max(last, printAudit(e.stdout, rows))
			if len(rows) < f.Limit {
				break
			}
		}
	}
}

// printAudit prints rows in the order of their time (then of their id), one line each, and
// returns the highest row id (0 when there are none). The store numbers rows in the order
// they were written, which is when calls ended: a long call started before rows numbered
// ahead of it.
func printAudit(w io.Writer, rows []store.Entry) int64 {
	rows = slices.Clone(rows)
	slices.SortStableFunc(rows, func(a, b store.Entry) int {
		return cmp.Or(a.Time.Compare(b.Time), cmp.Compare(a.ID, b.ID))
	})
	var last int64
	for _, r := range rows {
		fmt.Fprintln(w, auditLine(r))
		last = max(last, r.ID)
	}
	return last
}

// auditLine is one audit row as a line: the time, then key=value fields (values quoted
// when they hold spaces or quotes), so lines can be read and grepped alike.
func auditLine(r store.Entry) string {
	principal, via := r.Principal, r.Via
	if principal == "" {
		principal = "anonymous"
	}
	line := fmt.Sprintf("%s server=%s tool=%s principal=%s", r.Time.UTC().Format("2006-01-02T15:04:05.000Z"), field(r.Server), field(r.Tool), field(principal))
	if via != "" {
		line += " via=" + field(via)
	}
	if r.Client != "" {
		line += " client=" + field(r.Client)
	}
	line += fmt.Sprintf(" outcome=%s duration=%s", field(r.Outcome), r.Duration.Round(time.Microsecond))
	if r.Error != "" {
		line += " error=" + strconv.Quote(r.Error)
	}
	if r.Arguments != "" {
		line += " arguments=" + strconv.Quote(r.Arguments)
	}
	return line
}

// field quotes v when it would not read as one token.
func field(v string) string {
	for _, c := range v {
		if c <= ' ' || c == '"' || c == '=' || c == 0x7f {
			return strconv.Quote(v)
		}
	}
	if v == "" {
		return `""`
	}
	return v
}
