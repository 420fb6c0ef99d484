package mongodb

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lazy"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections"
)

// conn holds the evaluated properties of a MongoDBCollection connection.
type conn struct {
	id         string // the connection id, for messages
	uri        string
	database   string
	collection string
	read       bool // default true
	write      bool // default false
	options    *jsvalue.Object
}

// parseConn reads the connection properties (Check has validated them).
func parseConn(c *connections.Call) (*conn, error) {
	if err := checkConnection(c.Connection); err != nil {
		return nil, err
	}
	p := c.Connection
	cn := &conn{id: c.ConnectionID, read: true}
	cn.uri, _ = p.Prop("databaseUri").(string)
	cn.collection, _ = p.Prop("collection").(string)
	cn.database, _ = p.Prop("databaseName").(string)
	if b, ok := p.Prop("read").(bool); ok {
		cn.read = b
	}
	cn.write = p.Prop("write") == true
	cn.options, _ = p.Prop("options").(*jsvalue.Object)
	if cn.database == "" {
		cn.database = uriDatabase(cn.uri)
	}
	return cn, nil
}

// uriDatabase is the database named in the path of a connection string, or "test" as in
// the Node driver when there is none.
func uriDatabase(uri string) string {
	_, rest, ok := strings.Cut(uri, "://")
	if !ok {
		return "test"
	}
	_, path, ok := strings.Cut(rest, "/")
	if !ok {
		return "test"
	}
	path, _, _ = strings.Cut(path, "?")
	if db, err := url.PathUnescape(path); err == nil && db != "" {
		return db
	}
	return "test"
}

// poolKey is the key of a client in connections.Pools: the connection string and the
// client options.
func poolKey(uri string, opts *jsvalue.Object) string {
	key := "mongodb\x00" + uri
	if opts != nil {
		key += "\x00" + opts.String()
	}
	return key
}

// pooled is a client kept in connections.Pools.
type pooled struct{ client *mongo.Client }

// Close disconnects the client, waiting at most ten seconds for operations in flight.
func (p *pooled) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return p.client.Disconnect(ctx)
}

// client returns a client for the connection: from deps.Pools when there is one (keyed
// by the connection string and client options), else a new one that release closes.
func (cn *conn) client(deps *connections.Deps, log *slog.Logger) (c *mongo.Client, release func(), err error) {
	open := func() (*pooled, error) {
		opts := options.Client().ApplyURI(cn.uri)
		if err := clientOptions(opts, cn.options, log); err != nil {
			return nil, err
		}
		if err := opts.Validate(); err != nil {
			return nil, fmt.Errorf("connection %q: property \"databaseUri\" is not a valid MongoDB connection string (mongodb://user:password@host:port/database): %s", cn.id, cn.redact(err.Error()))
		}
		mc, err := mongo.Connect(opts)
		if err != nil {
			return nil, fmt.Errorf("connection %q: connect to MongoDB: %s", cn.id, cn.redact(err.Error()))
		}
		return &pooled{client: mc}, nil
	}
	var pools *connections.Pools
	if deps != nil {
		pools = deps.Pools
	}
	if pools == nil {
		p, err := open()
		if err != nil {
			return nil, nil, err
		}
		return p.client, func() { _ = p.Close() }, nil
	}
	h, err := pools.Get(poolKey(cn.uri, cn.options), func() (io.Closer, error) {
		p, err := open()
		if err != nil {
			return nil, err
		}
		return p, nil
	})
	if err != nil {
		return nil, nil, err
	}
	return h.(*pooled).client, func() {}, nil
}

// redact removes the connection string and the passwords of the connection from a driver
// message.
func (cn *conn) redact(msg string) string {
	msg = redact(msg, cn.uri)
	if auth, ok := cn.options.Prop("auth").(*jsvalue.Object); ok {
		if pw, ok := auth.Prop("password").(string); ok && pw != "" {
			msg = strings.ReplaceAll(msg, pw, "xxxxx")
		}
	}
	return msg
}

// redact removes uri and the password in it from msg; the password is replaced in its
// raw and its decoded form.
func redact(msg, uri string) string {
	if uri == "" {
		return msg
	}
	_, rest, ok := strings.Cut(uri, "://")
	if !ok {
		rest = uri
	}
	var secrets []string
	if at := strings.LastIndex(strings.SplitN(rest, "/", 2)[0], "@"); at >= 0 {
		userinfo := rest[:at]
		if _, pw, ok := strings.Cut(userinfo, ":"); ok && pw != "" {
			secrets = append(secrets, pw)
			if dec, err := url.PathUnescape(pw); err == nil && dec != pw {
				secrets = append(secrets, dec)
			}
			if dec, err := url.QueryUnescape(pw); err == nil && dec != pw {
				secrets = append(secrets, dec)
			}
		}
	}
	msg = strings.ReplaceAll(msg, uri, "<databaseUri>")
	for _, s := range secrets {
		msg = strings.ReplaceAll(msg, s, "xxxxx")
	}
	return msg
}

// durationOptions are the options of clientOptions given in milliseconds, with their setters.
// The table is built on first use.
var durationOptions = lazy.Value[map[string]func(*options.ClientOptions, time.Duration) *options.ClientOptions]{New: func() map[string]func(*options.ClientOptions, time.Duration) *options.ClientOptions {
	return map[string]func(*options.ClientOptions, time.Duration) *options.ClientOptions{
		"maxIdleTimeMS":            (*options.ClientOptions).SetMaxConnIdleTime,
		"connectTimeoutMS":         (*options.ClientOptions).SetConnectTimeout,
		"serverSelectionTimeoutMS": (*options.ClientOptions).SetServerSelectionTimeout,
		"heartbeatFrequencyMS":     (*options.ClientOptions).SetHeartbeatInterval,
		"localThresholdMS":         (*options.ClientOptions).SetLocalThreshold,
		"timeoutMS":                (*options.ClientOptions).SetTimeout,
	}
}}

// clientOptions applies the connection's `options` (the MongoClientOptions Lowdefy passes
// to the Node driver) to opts. Options of the connection string can also be written in
// the databaseUri; options without a Go equivalent are ignored with a warning.
func clientOptions(opts *options.ClientOptions, o *jsvalue.Object, log *slog.Logger) error {
	if o == nil {
		return nil
	}
	var err error
	o.Range(func(k string, v any) bool {
		if jsvalue.IsUndefined(v) {
			return true
		}
		p := "options." + k
		switch k {
		case "appName":
			var s string
			s, err = str(v, p)
			opts.SetAppName(s)
		case "maxPoolSize", "minPoolSize", "maxConnecting":
			var n int64
			n, err = integer(v, p)
			if err == nil && n < 0 {
				err = fmt.Errorf("property %q should not be negative", p)
			}
			switch k {
			case "maxPoolSize":
				opts.SetMaxPoolSize(uint64(n))
			case "minPoolSize":
				opts.SetMinPoolSize(uint64(n))
			default:
				opts.SetMaxConnecting(uint64(n))
			}
		case "maxIdleTimeMS", "connectTimeoutMS", "serverSelectionTimeoutMS", "heartbeatFrequencyMS", "localThresholdMS", "timeoutMS":
			f, e := number(v, p)
			err = e
			durationOptions.Get()[k](opts, time.Duration(f*float64(time.Millisecond)))
		case "retryReads", "retryWrites", "directConnection", "loadBalanced":
			var b bool
			b, err = boolean(v, p)
			switch k {
			case "retryReads":
				opts.SetRetryReads(b)
			case "retryWrites":
				opts.SetRetryWrites(b)
			case "directConnection":
				opts.SetDirect(b)
			default:
				opts.SetLoadBalanced(b)
			}
		case "replicaSet":
			var s string
			s, err = str(v, p)
			opts.SetReplicaSet(s)
		case "compressors":
			var list []string
			switch x := v.(type) {
			case string:
				list = strings.Split(x, ",")
			case []any:
				for i, c := range x {
					s, e := str(c, fmt.Sprintf("%s.%d", p, i))
					if e != nil {
						err = e
					}
					list = append(list, s)
				}
			default:
				err = fmt.Errorf("property %q should be a list such as [\"zstd\", \"zlib\"]", p)
			}
			opts.SetCompressors(list)
		case "readPreference":
			rp, e := readPreference(v, p)
			err = e
			opts.SetReadPreference(rp)
		case "readConcern", "readConcernLevel":
			rc, e := readConcern(v, p)
			err = e
			opts.SetReadConcern(rc)
		case "writeConcern", "w":
			if k == "w" {
				v = jsvalue.ObjectOf("w", v)
			}
			wc, e := writeConcern(v, p)
			err = e
			opts.SetWriteConcern(wc)
		case "auth":
			err = applyAuth(opts, v, p)
		case "authSource", "authMechanism":
			var s string
			s, err = str(v, p)
			cred := credential(opts)
			if k == "authSource" {
				cred.AuthSource = s
			} else {
				cred.AuthMechanism = s
			}
			opts.SetAuth(cred)
		case "useNewUrlParser", "useUnifiedTopology", "useCreateIndex", "useFindAndModify":
			// Node driver 3.x flags that 4.x ignores.
		default:
			log.Warn("MongoDBCollection connection option not supported; it is ignored (options of the connection string can be written in databaseUri)", "option", k)
		}
		if err != nil {
			err = fmt.Errorf("MongoDBCollection connection %w", err)
			return false
		}
		return true
	})
	return err
}

func credential(opts *options.ClientOptions) options.Credential {
	if opts.Auth != nil {
		return *opts.Auth
	}
	return options.Credential{}
}

// applyAuth reads the Node driver's `auth: {username, password}`.
func applyAuth(opts *options.ClientOptions, v any, p string) error {
	o, ok := v.(*jsvalue.Object)
	if !ok {
		return fmt.Errorf("property %q should be an object {username, password}", p)
	}
	cred := credential(opts)
	if u, ok := o.Prop("username").(string); ok {
		cred.Username = u
	} else if u, ok := o.Prop("user").(string); ok {
		cred.Username = u
	} else {
		return fmt.Errorf("property \"%s.username\" should be a string", p)
	}
	if pw, ok := o.Prop("password").(string); ok {
		cred.Password = pw
		cred.PasswordSet = true
	}
	opts.SetAuth(cred)
	return nil
}
