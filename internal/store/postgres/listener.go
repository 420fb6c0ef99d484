package postgres

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mcpbridge/mcpbridge/internal/store"
	"github.com/mcpbridge/mcpbridge/internal/store/internal/changes"
)

// ListenerApplicationName is the application_name of the listening
// connection, to find it in pg_stat_activity.
const ListenerApplicationName = "mcpbridge-listener"

// firstListenWait bounds how long Watch waits for the first LISTEN.
const firstListenWait = 10 * time.Second

// listener holds one dedicated connection that LISTENs on Channel and
// publishes what it hears to the hub. It starts with the first Watch.
type listener struct {
	cfg     *pgx.ConnConfig
	hub     *changes.Hub
	log     *slog.Logger
	resync  time.Duration
	health  time.Duration
	backoff time.Duration

	mu      sync.Mutex
	started bool
	stopped bool
	ready   chan struct{} // closed after the first successful LISTEN
	ctx     context.Context
	cancel  context.CancelFunc
	done    chan struct{}
}

func newListener(cfg *pgx.ConnConfig, hub *changes.Hub, log *slog.Logger, opts Options) *listener {
	cfg = cfg.Copy()
	cfg.RuntimeParams["application_name"] = ListenerApplicationName
	l := &listener{
		cfg:     cfg,
		hub:     hub,
		log:     log,
		resync:  opts.ResyncInterval,
		health:  opts.HealthInterval,
		backoff: opts.MaxReconnectDelay,
		ready:   make(chan struct{}),
		done:    make(chan struct{}),
	}
	if l.resync == 0 {
		l.resync = 10 * time.Minute
	}
	if l.health <= 0 {
		l.health = 30 * time.Second
	}
	if l.backoff <= 0 {
		l.backoff = 5 * time.Second
	}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	return l
}

// subscribe starts the listener if needed, subscribes to the hub, and waits
// (bounded by ctx and firstListenWait) until the listener has LISTENed once,
// so that changes committed after it returns are heard. If the database is
// unreachable it returns anyway; the listener keeps trying and sends a
// ChangeResync once it is connected.
func (l *listener) subscribe(ctx context.Context) <-chan store.Change {
	l.mu.Lock()
	if !l.started && !l.stopped {
		l.started = true
		go l.run()
	}
	l.mu.Unlock()
	ch := l.hub.Subscribe(ctx)
	t := time.NewTimer(firstListenWait)
	defer t.Stop()
	select {
	case <-l.ready:
	case <-ctx.Done():
	case <-l.ctx.Done():
	case <-t.C:
		l.log.Warn("postgres store: change listener not connected yet; watchers will get a resync when it is")
	}
	return ch
}

// stop ends the listener and waits for it.
func (l *listener) stop() {
	l.mu.Lock()
	l.stopped = true
	started := l.started
	l.mu.Unlock()
	l.cancel()
	if started {
		<-l.done
	}
}

func (l *listener) run() {
	defer close(l.done)
	ctx := l.ctx
	missed := false // a connection failed or was lost: watchers may have missed changes
	delay := 50 * time.Millisecond
	readyClosed := false
	for ctx.Err() == nil {
		conn, err := l.connect(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			missed = true
			l.log.Warn("postgres store: change listener cannot connect; retrying", "in", delay, "err", err)
			select {
			case <-time.After(delay):
			case <-ctx.Done():
				return
			}
			delay = min(2*delay, l.backoff)
			continue
		}
		delay = 50 * time.Millisecond
		if !readyClosed {
			close(l.ready)
			readyClosed = true
		}
		if missed {
			l.log.Info("postgres store: change listener reconnected; telling watchers to resync")
			l.hub.Publish(store.Change{Kind: store.ChangeResync})
			missed = false
		}
		err = l.listen(ctx, conn)
		closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn.Close(closeCtx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		missed = true
		l.log.Warn("postgres store: change listener lost its connection; reconnecting", "err", err)
	}
}

func (l *listener) connect(ctx context.Context) (*pgx.Conn, error) {
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(cctx, l.cfg)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(cctx, "LISTEN "+pgx.Identifier{Channel}.Sanitize()); err != nil {
		conn.Close(context.Background())
		return nil, err
	}
	return conn, nil
}

// listen delivers notifications until the connection fails or ctx ends.
func (l *listener) listen(ctx context.Context, conn *pgx.Conn) error {
	nextResync := time.Now().Add(l.resync)
	for {
		wait := l.health
		if l.resync > 0 {
			wait = min(wait, max(time.Until(nextResync), time.Millisecond))
		}
		wctx, cancel := context.WithTimeout(ctx, wait)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case err == nil:
			l.publish(n.Payload)
			continue
		case ctx.Err() != nil:
			return ctx.Err()
		case !errors.Is(err, context.DeadlineExceeded) || conn.IsClosed():
			return err
		}
		// Idle: check the connection is alive, and resync when due.
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err = conn.Ping(pctx)
		cancel()
		if err != nil {
			return err
		}
		if l.resync > 0 && !time.Now().Before(nextResync) {
			l.hub.Publish(store.Change{Kind: store.ChangeResync})
			nextResync = time.Now().Add(l.resync)
		}
	}
}

func (l *listener) publish(payload string) {
	kind, slug, ok := strings.Cut(payload, ":")
	switch k := store.ChangeKind(kind); {
	case ok && (k == store.ChangePut || k == store.ChangeDelete) && store.CheckSlug(slug) == nil:
		l.hub.Publish(store.Change{Kind: k, Slug: slug})
	default:
		l.log.Warn("postgres store: unrecognised change notification; resyncing", "payload", payload)
		l.hub.Publish(store.Change{Kind: store.ChangeResync})
	}
}

// notify announces a change inside tx; PostgreSQL delivers it on commit.
func notify(ctx context.Context, tx pgx.Tx, c store.Change) error {
	_, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, Channel, string(c.Kind)+":"+c.Slug)
	return err
}
