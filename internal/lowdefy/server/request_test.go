package server

import (
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
)

const requestApp = `
lowdefy: 4.0.0
auth:
  pages:
    protected: [members, admin]
    roles:
      admin: [admin]
connections:
  - id: db
    type: MongoDBCollection
    properties:
      host: db.internal
      password:
        _secret: DB_PASSWORD
      read: true
  - id: readonly
    type: MongoDBCollection
    properties:
      read: false
  - id: writable
    type: MongoDBCollection
    properties:
      write: true
  - id: broken
    type: MongoDBCollection
    properties:
      password:
        _secret: MISSING_OK
      bad:
        _divide: [{ _secret: DB_PASSWORD }, 0]
  - id: mystery
    type: GoogleSheet
pages:
  - id: home
    type: Box
    requests:
      - id: get
        type: MongoDBAggregation
        connectionId: db
        payload:
          q: { _state: q }
        properties:
          query:
            name: { _payload: q }
            when: { _payload: when }
            who: { _user: email }
          secret_len: { _string.length: { _secret: DB_PASSWORD } }
      - id: read_blocked
        type: MongoDBFind
        connectionId: readonly
      - id: write_blocked
        type: MongoDBInsertOne
        connectionId: db
      - id: write_ok
        type: MongoDBInsertOne
        connectionId: writable
      - id: bad_operator
        type: MongoDBAggregation
        connectionId: db
        properties:
          x: { _divide: [{ _secret: DB_PASSWORD }, 0] }
      - id: bad_connection_operator
        type: MongoDBAggregation
        connectionId: broken
      - id: driver_error
        type: MongoDBAggregation
        connectionId: db
        properties:
          fail: connection refused
      - id: panics
        type: MongoDBAggregation
        connectionId: db
        properties:
          panic: true
      - id: unknown_conn_type
        type: MongoDBAggregation
        connectionId: mystery
      - id: unknown_req_type
        type: MongoDBDeleteOne
        connectionId: db
      - id: missing_conn
        type: MongoDBAggregation
        connectionId: nowhere
      - id: checked
        type: MongoDBFindOne
        connectionId: db
        properties:
          other: 1
  - id: members
    type: Box
    requests:
      - id: get
        type: MongoDBAggregation
        connectionId: db
        properties:
          who: { _user: id }
  - id: admin
    type: Box
    requests:
      - id: get
        type: MongoDBAggregation
        connectionId: db
`

const dbPassword = "correct-horse-battery"

func newRequestServer(t *testing.T) (*Server, *recorder) {
	t.Helper()
	rec := &recorder{}
	a := loadApp(t, map[string]string{"lowdefy.yaml": requestApp})
	s := New(a, Options{
		Connections: rec.set(),
		Secrets:     SecretsFromEnv([]string{"LOWDEFY_SECRET_DB_PASSWORD=" + dbPassword, "PATH=/bin", "LOWDEFY_SECRET_=x"}),
	})
	return s, rec
}

func TestCallRequestEvaluatesPropertiesOverPayloadSecretsAndUser(t *testing.T) {
	s, rec := newRequestServer(t)
	res, err := s.CallRequest(bg, user("reader"), RequestCall{
		PageID: "home", RequestID: "get", BlockID: "button",
		Payload: map[string]any{"q": "Ada", "when": map[string]any{"~d": 0.0}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.ID != "request:home:get" || !res.Success || res.Type != "MongoDBAggregation" {
		t.Fatalf("result header %+v", res)
	}
	c := rec.last(t)
	if c.PageID != "home" || c.RequestID != "get" || c.BlockID != "button" || c.ConnectionID != "db" {
		t.Fatalf("call names %+v", c)
	}
	if got := c.Connection.Prop("password"); got != dbPassword {
		t.Fatalf("connection password = %v, want the secret", got)
	}
	if c.Connection.Prop("host") != "db.internal" {
		t.Fatalf("connection props %v", c.Connection)
	}
	// The request properties were evaluated over the payload (with the date revived),
	// the user and the secrets, and the response is serialized for the client.
	want := `{"query":{"name":"Ada","when":{"~d":0},"who":"ada@example.com"},"secret_len":21}`
	if got := jsonOf(t, res.Response); got != want {
		t.Fatalf("response %s\nwant     %s", got, want)
	}
	if _, ok := c.Request.(*jsvalue.Object).Prop("query").(*jsvalue.Object).Prop("when").(interface{ Unix() int64 }); !ok {
		t.Fatalf("the connection did not get a Date for the payload date: %v", c.Request)
	}
}

func TestCallRequestAnonymousUserIsUndefined(t *testing.T) {
	s, _ := newRequestServer(t)
	res, err := s.CallRequest(bg, nil, RequestCall{PageID: "home", RequestID: "get", Payload: map[string]any{"q": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonOf(t, res.Response); !strings.Contains(got, `"who":null`) {
		t.Fatalf("anonymous _user should be null, got %s", got)
	}
}

func TestCallRequestLookupErrors(t *testing.T) {
	s, _ := newRequestServer(t)
	cases := []struct {
		page, req, kind, msg string
	}{
		{"home", "nope", "ConfigurationError", `Request "nope" does not exist.`},
		{"nowhere", "get", "ConfigurationError", `Request "get" does not exist.`},
		{"home", "missing_conn", "ConfigurationError", `Connection "nowhere" does not exist.`},
		{"home", "unknown_conn_type", "ConfigurationError", `Connection type "GoogleSheet" can not be found.`},
		{"home", "unknown_req_type", "ConfigurationError", `Request type "MongoDBDeleteOne" can not be found.`},
		{"home", "read_blocked", "ConfigurationError", `Connection "readonly" does not allow reads.`},
		{"home", "write_blocked", "ConfigurationError", `Connection "db" does not allow writes.`},
		{"home", "checked", "ConfigurationError", `Request property "query" is required.`},
	}
	for _, c := range cases {
		_, err := s.CallRequest(bg, nil, RequestCall{PageID: c.page, RequestID: c.req})
		wantError(t, err, c.kind, c.msg)
	}
	if _, err := s.CallRequest(bg, nil, RequestCall{PageID: "home", RequestID: "write_ok"}); err != nil {
		t.Fatalf("write with write: true: %v", err)
	}
}

func TestCallRequestAuthorisesThePage(t *testing.T) {
	s, rec := newRequestServer(t)
	// A protected page's request does not exist for a signed-out user, and the
	// connection is never called.
	_, err := s.CallRequest(bg, nil, RequestCall{PageID: "members", RequestID: "get"})
	wantError(t, err, "ConfigurationError", `Request "get" does not exist.`)
	if len(rec.calls) != 0 {
		t.Fatal("the connection ran for an unauthorised user")
	}
	if _, err := s.CallRequest(bg, user(), RequestCall{PageID: "members", RequestID: "get"}); err != nil {
		t.Fatalf("signed-in user on a protected page: %v", err)
	}
	_, err = s.CallRequest(bg, user("reader"), RequestCall{PageID: "admin", RequestID: "get"})
	wantError(t, err, "ConfigurationError", `Request "get" does not exist.`)
	if _, err := s.CallRequest(bg, user("reader", "admin"), RequestCall{PageID: "admin", RequestID: "get"}); err != nil {
		t.Fatalf("admin on the admin page: %v", err)
	}
}

func TestCallRequestErrorsNeverCarrySecrets(t *testing.T) {
	s, _ := newRequestServer(t)
	// An operator error: Lowdefy's message quotes the operator's (evaluated) params.
	_, err := s.CallRequest(bg, nil, RequestCall{PageID: "home", RequestID: "bad_operator"})
	se := wantKind(t, err, "RequestError")
	if strings.Contains(se.Message, dbPassword) || !containsAll(se.Message, "Error: Operator Error: _divide", "[secret]", "at bad_operator.") {
		t.Fatalf("operator error message %q", se.Message)
	}
	// The same in the connection's properties (location is the connection id).
	_, err = s.CallRequest(bg, nil, RequestCall{PageID: "home", RequestID: "bad_connection_operator"})
	se = wantKind(t, err, "RequestError")
	if strings.Contains(se.Message, dbPassword) || !strings.Contains(se.Message, "at broken.") {
		t.Fatalf("connection operator error message %q", se.Message)
	}
	// A connection that fails quoting its connection string.
	_, err = s.CallRequest(bg, nil, RequestCall{PageID: "home", RequestID: "driver_error"})
	se = wantKind(t, err, "RequestError")
	if se.Message != "connection refused (connecting with [secret])" {
		t.Fatalf("driver error message %q", se.Message)
	}
	if se.Err == nil || !strings.Contains(se.Err.Error(), dbPassword) {
		t.Fatalf("the cause (for the server's log) should keep the detail: %v", se.Err)
	}
}

func TestCallRequestConnectionPanicIsAnError(t *testing.T) {
	s, _ := newRequestServer(t)
	_, err := s.CallRequest(bg, nil, RequestCall{PageID: "home", RequestID: "panics"})
	se := wantKind(t, err, "RequestError")
	if !strings.Contains(se.Message, "boom") {
		t.Fatalf("panic message %q", se.Message)
	}
}

func TestSecretsFromEnv(t *testing.T) {
	got := SecretsFromEnv([]string{"LOWDEFY_SECRET_A=1=2", "LOWDEFY_SECRET_B=", "OTHER=3", "LOWDEFY_SECRET_=4", "LOWDEFY_SECRET_C"})
	if len(got) != 2 || got["A"] != "1=2" || got["B"] != "" {
		t.Fatalf("SecretsFromEnv = %v", got)
	}
}

func wantKind(t *testing.T, err error, kind string) *Error {
	t.Helper()
	se, ok := err.(*Error)
	if !ok || se.Kind != kind {
		t.Fatalf("got %v (%T), want a %s", err, err, kind)
	}
	return se
}
