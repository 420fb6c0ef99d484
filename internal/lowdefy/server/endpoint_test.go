package server

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
)

const endpointApp = `
lowdefy: 4.0.0
connections:
  - id: db
    type: MongoDBCollection
    properties:
      token:
        _secret: API_TOKEN
pages:
  - id: home
    type: Box
api:
  - id: steps
    type: Api
    routine:
      - id: first
        type: MongoDBAggregation
        connectionId: db
        properties:
          respond:
            name: { _payload: name }
      - id: second
        type: MongoDBAggregation
        connectionId: db
        properties:
          respond:
            greeting: { _string.concat: ['Hello ', { _step: first.name }] }
      - :return:
          first: { _step: first }
          second: { _step: second.greeting }
  - id: branches
    type: Api
    routine:
      - :if: { _eq: [{ _payload: mode }, 'a'] }
        :then:
          :return: took a
        :else:
          - :switch:
              - :case: { _eq: [{ _payload: mode }, 'b'] }
                :then:
                  :return: took b
              - :case: { _eq: [{ _payload: mode }, 'c'] }
                :then:
                  - :reject: { reason: no c }
            :default:
              :return: default
  - id: loops
    type: Api
    routine:
      - :set_state:
          count: 0
          names: []
      - :for: row
        :in: { _payload: rows }
        :do:
          - id: each
            type: MongoDBAggregation
            connectionId: db
            properties:
              respond: { _string.toUpperCase: { _item: row.name } }
          - :set_state:
              count: { _sum: [{ _state: count }, 1] }
              names: { _array.concat: [{ _state: names }, [{ _item: row.name }]] }
      - :return:
          count: { _state: count }
          names: { _state: names }
          each: { _step: each }
  - id: parallel
    type: Api
    routine:
      - :parallel_for: n
        :in: [1, 2, 3]
        :do:
          - id: p
            type: MongoDBAggregation
            connectionId: db
            properties:
              sleepMs: 30
              respond: { _product: [{ _item: n }, 10] }
      - :parallel:
          - id: left
            type: MongoDBAggregation
            connectionId: db
            properties: { sleepMs: 30, respond: L }
          - id: right
            type: MongoDBAggregation
            connectionId: db
            properties: { sleepMs: 30, respond: R }
      - :return:
          p: { _step: p }
          lr: [{ _step: left }, { _step: right }]
  - id: parallel_outcome
    type: Api
    routine:
      :parallel:
        - :return: returned
        - :reject: rejected
        - :throw: thrown
  - id: errors
    type: Api
    routine:
      - :try:
          - id: fails
            type: MongoDBAggregation
            connectionId: db
            properties:
              fail: upstream said no
          - :return: not reached
        :catch:
          - :set_state: { caught: true }
        :finally:
          - :log: { note: cleaned up, caught: { _state: caught } }
            :level: warn
      - :if: { _payload: throw }
        :then:
          :throw: { _string.concat: ['bad input: ', { _payload: why }] }
      - :if: { _payload: bad_operator }
        :then:
          :return: { _divide: [{ _secret: API_TOKEN }, 0] }
      - :return: { caught: { _state: caught } }
  - id: finally_wins
    type: Api
    routine:
      :try:
        - :throw: first
      :catch:
        - :throw: second
      :finally:
        - :return: from finally
  - id: reject_not_caught
    type: Api
    routine:
      - :try:
          - :reject: { info: rejected }
        :catch:
          - :return: caught
  - id: broken_loop
    type: Api
    routine:
      - :for: x
        :in: not an array
        :do:
          - :return: 1
  - id: while
    type: Api
    routine:
      - :while: true
  - id: bad_step
    type: Api
    routine:
      - type: MongoDBAggregation
        connectionId: db
`

const apiToken = "tok-0123456789"

func newEndpointServer(t *testing.T) (*Server, *recorder, *bytes.Buffer) {
	t.Helper()
	rec := &recorder{}
	var logs bytes.Buffer
	s := New(loadApp(t, map[string]string{"lowdefy.yaml": endpointApp}), Options{
		Connections: rec.set(),
		Secrets:     map[string]string{"API_TOKEN": apiToken},
		Logger:      slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	return s, rec, &logs
}

func callEndpoint(t *testing.T, s *Server, id string, payload map[string]any) *EndpointResult {
	t.Helper()
	res, err := s.CallEndpoint(bg, nil, EndpointCall{EndpointID: id, PageID: "home", BlockID: "b", Payload: payload})
	if err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	return res
}

func TestEndpointStepsAndReturn(t *testing.T) {
	s, rec, _ := newEndpointServer(t)
	res := callEndpoint(t, s, "steps", map[string]any{"name": "Ada"})
	if res.Status != "success" || !res.Success || res.Error != nil {
		t.Fatalf("result %+v", res)
	}
	if got := jsonOf(t, res.Response); got != `{"first":{"name":"Ada"},"second":"Hello Ada"}` {
		t.Fatalf("response %s", got)
	}
	c := rec.last(t)
	if c.RequestID != "second" || c.PageID != "home" || c.BlockID != "b" || c.Connection.Prop("token") != apiToken {
		t.Fatalf("step call %+v", c)
	}
}

func TestEndpointBranches(t *testing.T) {
	s, _, _ := newEndpointServer(t)
	for mode, want := range map[string]string{"a": `"took a"`, "b": `"took b"`, "z": `"default"`} {
		res := callEndpoint(t, s, "branches", map[string]any{"mode": mode})
		if res.Status != "success" || jsonOf(t, res.Response) != want {
			t.Errorf("mode %s: %+v", mode, res)
		}
	}
	res := callEndpoint(t, s, "branches", map[string]any{"mode": "c"})
	if res.Status != "reject" || res.Success || jsonOf(t, res.Response) != `{"reason":"no c"}` || res.Error != nil {
		t.Fatalf("reject: %+v", res)
	}
}

func TestEndpointForLoopStateAndIndexedSteps(t *testing.T) {
	s, _, _ := newEndpointServer(t)
	res := callEndpoint(t, s, "loops", map[string]any{"rows": []any{map[string]any{"name": "ada"}, map[string]any{"name": "bob"}}})
	want := `{"count":2,"names":["ada","bob"],"each":["ADA","BOB"]}`
	if res.Status != "success" || jsonOf(t, res.Response) != want {
		t.Fatalf("loops: %+v\nwant %s", res, want)
	}
}

func TestEndpointParallel(t *testing.T) {
	s, rec, _ := newEndpointServer(t)
	res := callEndpoint(t, s, "parallel", nil)
	if got := jsonOf(t, res.Response); got != `{"p":[10,20,30],"lr":["L","R"]}` {
		t.Fatalf("parallel response %s (%+v)", got, res)
	}
	if rec.maxInFlight < 2 {
		t.Fatalf("the connections of parallel branches ran one at a time (max in flight %d)", rec.maxInFlight)
	}
	// Of several outcomes, the error wins, then reject, then return.
	res = callEndpoint(t, s, "parallel_outcome", nil)
	if res.Status != "error" || res.Error == nil || res.Error.Message != "thrown" {
		t.Fatalf("parallel outcome %+v", res)
	}
}

func TestEndpointTryCatchFinallyLogAndThrow(t *testing.T) {
	s, _, logs := newEndpointServer(t)
	res := callEndpoint(t, s, "errors", nil)
	if res.Status != "success" || jsonOf(t, res.Response) != `{"caught":true}` {
		t.Fatalf("caught: %+v", res)
	}
	if !containsAll(logs.String(), "level=WARN", `log="{\"note\":\"cleaned up\",\"caught\":true}"`) {
		t.Fatalf(":log output missing:\n%s", logs.String())
	}
	res = callEndpoint(t, s, "errors", map[string]any{"throw": true, "why": "too big"})
	if res.Status != "error" || res.Success || res.Error == nil || res.Error.Name != "Error" || res.Error.Message != "bad input: too big" {
		t.Fatalf("throw: %+v %+v", res, res.Error)
	}
	// An operator error in a routine: Lowdefy's `new Error(errors[0])`, secrets hidden.
	res = callEndpoint(t, s, "errors", map[string]any{"bad_operator": true})
	if res.Status != "error" || !strings.HasPrefix(res.Error.Message, "Error: Operator Error: _divide") ||
		strings.Contains(res.Error.Message, apiToken) || !strings.Contains(res.Error.Message, "[secret]") {
		t.Fatalf("operator error: %+v", res.Error)
	}

	res = callEndpoint(t, s, "finally_wins", nil)
	if res.Status != "success" || res.Response != "from finally" {
		t.Fatalf(":finally overrides: %+v", res)
	}
	res = callEndpoint(t, s, "reject_not_caught", nil)
	if res.Status != "reject" || jsonOf(t, res.Response) != `{"info":"rejected"}` {
		t.Fatalf(":catch does not catch a reject: %+v", res)
	}
}

func TestEndpointInvalidRoutines(t *testing.T) {
	s, _, _ := newEndpointServer(t)
	res := callEndpoint(t, s, "broken_loop", nil)
	if res.Status != "error" || res.Error.Message != `Invalid :for in endpoint "broken_loop" - :in must evaluate to an array. Received "not an array".` {
		t.Fatalf("broken loop: %+v", res.Error)
	}
	res = callEndpoint(t, s, "while", nil)
	if res.Status != "error" || !strings.Contains(res.Error.Message, ":while is not implemented") {
		t.Fatalf(":while: %+v", res.Error)
	}
	_, err := s.CallEndpoint(bg, nil, EndpointCall{EndpointID: "bad_step"})
	se := wantKind(t, err, "ConfigurationError")
	if !strings.Contains(se.Message, `Step on endpoint "bad_step" has no id`) {
		t.Fatalf("bad step: %q", se.Message)
	}
}

func TestEndpointRequestStepErrors(t *testing.T) {
	// A failing step is a RequestError result, its message free of the secret the
	// connection quoted.
	s2 := New(loadApp(t, map[string]string{"lowdefy.yaml": `
lowdefy: 4.0.0
connections:
  - id: db
    type: MongoDBCollection
    properties:
      password: { _secret: API_TOKEN }
api:
  - id: e
    type: Api
    routine:
      - id: s
        type: MongoDBAggregation
        connectionId: db
        properties: { fail: denied }
pages:
  - id: home
    type: Box
`}), Options{Connections: (&recorder{}).set(), Secrets: map[string]string{"API_TOKEN": apiToken}})
	res := callEndpoint(t, s2, "e", nil)
	if res.Status != "error" || res.Error.Name != "RequestError" || res.Error.Message != "denied (connecting with [secret])" {
		t.Fatalf("step error: %+v", res.Error)
	}
}

func TestEndpointCancelledContext(t *testing.T) {
	s, rec, _ := newEndpointServer(t)
	ctx, cancel := context.WithCancel(bg)
	cancel()
	res, err := s.CallEndpoint(ctx, nil, EndpointCall{EndpointID: "steps"})
	if err != nil || res.Status != "error" || len(rec.calls) != 0 {
		t.Fatalf("cancelled call: %+v %v, %d connection calls", res, err, len(rec.calls))
	}
}

func TestSetPath(t *testing.T) {
	o := user()
	setPath(o, "a.0.b", 1.0)
	setPath(o, "a.2", "x")
	setPath(o, `c\.d`, true)
	// As in @lowdefy/helpers set, prototype keys are dropped from the path.
	setPath(o, "__proto__.e", 1.0)
	if got := jsonOf(t, o); !strings.HasSuffix(got, `"a":[{"b":1},null,"x"],"c.d":true,"e":1}`) {
		t.Fatalf("setPath gave %s", got)
	}
}
