package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/auth"
	"github.com/mcpbridge/mcpbridge/internal/config"
	"github.com/mcpbridge/mcpbridge/internal/store"
	"github.com/mcpbridge/mcpbridge/internal/store/openstore"
)

// runKeys manages the API keys of the store that serve uses.
func runKeys(ctx context.Context, e *env, args []string) error {
	usage := func() error {
		fmt.Fprintln(e.stderr, "Usage: mcpbridge keys create --user ID [--roles a,b] [--servers x,y] [--name LABEL] [--user-name NAME] [--email EMAIL] [--admin]")
		fmt.Fprintln(e.stderr, "       mcpbridge keys list")
		fmt.Fprintln(e.stderr, "       mcpbridge keys revoke ID")
		fmt.Fprintln(e.stderr, "       mcpbridge keys hash   (reads a key on stdin, prints the hash to declare it in auth.keys)")
		fmt.Fprintln(e.stderr, "Each takes --config FILE and --store URL like serve, and uses the same store.")
		return errUsage
	}
	if len(args) == 0 {
		return usage()
	}
	switch args[0] {
	case "create":
		return keysCreate(ctx, e, args[1:])
	case "list":
		return keysList(ctx, e, args[1:])
	case "revoke":
		return keysRevoke(ctx, e, args[1:])
	case "hash":
		return keysHash(e)
	case "-h", "--help", "help":
		usage()
		return nil
	}
	fmt.Fprintf(e.stderr, "mcpbridge keys: unknown subcommand %q\n", args[0])
	return usage()
}

// storeFlags are the --config and --store of the commands that work on the store serve
// uses (keys, audit, and tools and call in-process).
type storeFlags struct{ config, store string }

// add defines --config, described by configHelp, and --store on fs.
func (f *storeFlags) add(fs *flag.FlagSet, configHelp string) {
	fs.StringVar(&f.config, "config", "", configHelp)
	fs.StringVar(&f.store, "store", "", "store URL (as for serve)")
}

// open opens the store serve would use with the same --config and --store, and returns it
// with the config and the logger (of warnings, to e.stderr) it was opened with.
func (f *storeFlags) open(ctx context.Context, e *env) (*store.Store, *config.Config, *slog.Logger, error) {
	return f.openStore(ctx, e, missingCreate)
}

// openExisting is open for commands that only read: a SQLite store that does not exist yet
// is an error naming the file (a misspelt --store), not a new empty database.
func (f *storeFlags) openExisting(ctx context.Context, e *env) (*store.Store, *config.Config, *slog.Logger, error) {
	return f.openStore(ctx, e, missingFail)
}

// openClient is open for tools and call: a SQLite store that does not exist yet holds no
// stored servers, so an empty in-memory store stands in for it and no database file is
// created (in the current folder or beside the config) by listing or calling tools.
func (f *storeFlags) openClient(ctx context.Context, e *env) (*store.Store, *config.Config, *slog.Logger, error) {
	return f.openStore(ctx, e, missingInMemory)
}

// What openStore does when a SQLite store's file does not exist.
const (
	missingCreate   = iota // create it, as serve does
	missingFail            // fail, naming the file
	missingInMemory        // use an empty in-memory store instead
)

func (f *storeFlags) openStore(ctx context.Context, e *env, missing int) (*store.Store, *config.Config, *slog.Logger, error) {
	cfg, _, err := loadConfig(f.config, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	u := storeURL(f.store, cfg)
	if kind, path, err := openstore.Parse(u); missing != missingCreate && err == nil && kind == "sqlite" && path != ":memory:" {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			if missing == missingFail {
				return nil, nil, nil, fmt.Errorf("no store at %s: nothing has been recorded there; check --store or --config (serve creates the store where it runs)", path)
			}
			u = "sqlite::memory:"
		}
	}
	log, _ := newLogger(e.stderr, "warn")
	st, err := openStore(ctx, u, log)
	if err != nil {
		return nil, nil, nil, err
	}
	return st, cfg, log, nil
}

func splitList(s string) []string {
	var out []string
	for part := range strings.SplitSeq(s, ",") {
		if p := strings.TrimSpace(part); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func keysCreate(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "keys create", "--user ID [--roles a,b] [--servers x,y] [--name LABEL] [--user-name NAME] [--email EMAIL] [--admin] [--config FILE] [--store URL]")
	var sf storeFlags
	sf.add(fs, "config file (as for serve)")
	user := fs.String("user", "", "the user id the key authenticates as (required)")
	roles := fs.String("roles", "", "comma-separated roles of the user")
	servers := fs.String("servers", "", "comma-separated servers the key is limited to (default: any its roles allow)")
	label := fs.String("name", "", "a label for people, e.g. \"ci deploy\"")
	userName := fs.String("user-name", "", "the user's display name")
	email := fs.String("email", "", "the user's email address")
	admin := fs.Bool("admin", false, "the key may also use the admin API")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 || strings.TrimSpace(*user) == "" {
		return usageError(e, fs, pos, "--user is required")
	}
	st, cfg, _, err := sf.open(ctx, e)
	if err != nil {
		return err
	}
	defer st.Close()
	info := store.KeyInfo{Name: *label, User: strings.TrimSpace(*user), UserName: *userName, UserEmail: *email,
		Roles: splitList(*roles), Servers: splitList(*servers), Admin: *admin}
	for _, s := range info.Servers {
		if _, ok := cfg.Servers[s]; !ok {
			if _, err := st.Definitions.Get(ctx, s); err != nil {
				fmt.Fprintf(e.stderr, "warning: no server named %q in the config or the store (yet)\n", s)
			}
		}
	}
	secret, k, err := st.Keys.Create(ctx, info)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "created key %s for user %s (roles: %s; servers: %s)\n", k.ID, k.User, listOr(k.Roles, "none"), listOr(k.Servers, "any"))
	fmt.Fprintln(e.stdout, "the key is shown once, below; only its hash is stored. Send it as Authorization: Bearer KEY")
	fmt.Fprintln(e.stdout, secret)
	return nil
}

func listOr(l []string, none string) string {
	if len(l) == 0 {
		return none
	}
	return strings.Join(l, ",")
}

func keysList(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "keys list", "[--config FILE] [--store URL]")
	var sf storeFlags
	sf.add(fs, "config file (as for serve)")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	st, _, _, err := sf.open(ctx, e)
	if err != nil {
		return err
	}
	defer st.Close()
	keys, err := st.Keys.List(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tUSER\tROLES\tSERVERS\tADMIN\tSTARTS\tNAME\tCREATED\tREVOKED")
	for _, k := range keys {
		revoked := "-"
		if !k.RevokedAt.IsZero() {
			revoked = k.RevokedAt.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%v\t%s…\t%s\t%s\t%s\n", k.ID, k.User, listOr(k.Roles, "-"), listOr(k.Servers, "any"), k.Admin,
			k.Hint, orDash(k.Name), k.CreatedAt.UTC().Format(time.RFC3339), revoked)
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func keysRevoke(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "keys revoke", "[--config FILE] [--store URL] ID")
	var sf storeFlags
	sf.add(fs, "config file (as for serve)")
	pos, err := parseN(fs, args, 1)
	if err != nil {
		return err
	}
	st, _, _, err := sf.open(ctx, e)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Keys.Revoke(ctx, pos[0]); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("no key with id %q in this store (`mcpbridge keys list` shows the ids)", pos[0])
		}
		return err
	}
	fmt.Fprintf(e.stdout, "revoked key %s\n", pos[0])
	return nil
}

// keysHash reads a key on stdin (never an argument: it would land in the shell history
// and the process list) and prints the hash to declare it in auth.keys.
func keysHash(e *env) error {
	line, err := bufio.NewReader(io.LimitReader(e.stdin, 4096)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	key := strings.TrimSpace(line)
	if len(key) < 16 {
		return errors.New("write the key (at least 16 characters) on stdin, e.g. printf %s \"$KEY\" | mcpbridge keys hash")
	}
	fmt.Fprintln(e.stdout, "sha256:"+store.HashKey(key))
	return nil
}

// Environment variables that give stdio its principal.
const (
	apiKeyEnv    = "MCPBRIDGE_API_KEY"
	userEnv      = "MCPBRIDGE_USER"
	rolesEnv     = "MCPBRIDGE_ROLES"
	userNameEnv  = "MCPBRIDGE_USER_NAME"
	userEmailEnv = "MCPBRIDGE_USER_EMAIL"
)

// stdioPrincipal is who a stdio server runs as: the user of the API key in
// MCPBRIDGE_API_KEY (declared in the config or in the store), or the user named by
// MCPBRIDGE_USER with MCPBRIDGE_ROLES, or anonymous. stdio never reads credentials from
// the protocol: whoever starts the process chooses its principal.
func stdioPrincipal(ctx context.Context, cfg *config.Config, keys store.Keys) (auth.Principal, error) {
	if key := os.Getenv(apiKeyEnv); key != "" {
		if cfg.Auth != nil && len(cfg.Auth.Keys) > 0 {
			d, err := auth.ConfigKeys(cfg.Auth.Keys)
			if err != nil {
				return auth.Anonymous, err
			}
			if p, ok := d.Lookup(key); ok {
				return p, nil
			}
		}
		if strings.HasPrefix(key, store.KeyPrefix) {
			p, _, err := auth.StoreKeys{Keys: keys}.Lookup(ctx, key)
			if err != nil {
				return auth.Anonymous, fmt.Errorf("%s: %w", apiKeyEnv, err)
			}
			return p, nil
		}
		return auth.Anonymous, fmt.Errorf("%s is not a key of this config (auth.keys) or store", apiKeyEnv)
	}
	if u := strings.TrimSpace(os.Getenv(userEnv)); u != "" {
		return auth.Principal{User: u, Name: os.Getenv(userNameEnv), Email: os.Getenv(userEmailEnv), Roles: splitList(os.Getenv(rolesEnv)), Via: "env"}, nil
	}
	return auth.Anonymous, nil
}
