package app

import (
	"fmt"
	"testing"
)

// SecretRefs finds every _secret a connection, a request or an API endpoint reads, in its
// three spellings, once per name and place, sorted.
func TestSecretRefs(t *testing.T) {
	a := mustLoad(t, map[string]string{"lowdefy.yaml": `
lowdefy: 4.0.0-rc.11
connections:
  - id: db
    type: Knex
    properties:
      client: sqlite
      connection: {filename: {_secret: DB_FILE}, password: {_secret: {key: DB_PASS}}}
api:
  - id: hook
    type: Api
    routine:
      - :return: {_secret: HOOK.token}
pages:
  - id: home
    type: Box
    requests:
      - id: q
        type: KnexRaw
        connectionId: db
        properties: {query: {_string.concat: ["select ", {_secret: DB_FILE}]}, other: {_state: x}}
`})
	got := fmt.Sprint(a.SecretRefs())
	want := "[{DB_FILE connection db} {DB_FILE request home/q} {DB_PASS connection db} {HOOK api hook}]"
	if got != want {
		t.Errorf("SecretRefs = %s, want %s", got, want)
	}
}
