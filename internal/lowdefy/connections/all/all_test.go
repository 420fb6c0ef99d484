package all

import (
	"errors"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/lowdefy/connections"
)

func TestSet(t *testing.T) {
	s := Set()
	for conn, reqs := range map[string][]string{
		"AxiosHttp": {"AxiosHttp"},
		"Knex":      {"KnexRaw", "KnexBuilder"},
	} {
		for _, r := range reqs {
			typ, rt, err := s.Lookup(conn, r)
			if err != nil {
				t.Errorf("Lookup(%s, %s): %v", conn, r, err)
				continue
			}
			if typ.Name != conn || rt.Run == nil || rt.Check == nil || typ.Check == nil {
				t.Errorf("Lookup(%s, %s) = %+v %+v", conn, r, typ, rt)
			}
		}
	}
	_, _, err := s.Lookup("Knex", "KnexQuery")
	var unknown *connections.UnknownError
	if !errors.As(err, &unknown) || err.Error() != `unknown request type "KnexQuery" for connection type Knex` {
		t.Errorf("unknown request type: %v", err)
	}
	if _, _, err := s.Lookup("Nope", "X"); err == nil || err.Error() != `unknown connection type "Nope"` {
		t.Errorf("unknown connection type: %v", err)
	}
}
