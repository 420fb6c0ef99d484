package server

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/jsvalue"
	"github.com/mcpbridge/mcpbridge/internal/lowdefy/app"
	"github.com/mcpbridge/mcpbridge/internal/testenv"
)

// TestTutorialRequests runs the requests of the real tutorial app (step 08) against
// recording connection types: lookup, authorisation and evaluation as in Lowdefy.
func TestTutorialRequests(t *testing.T) {
	dir := copyDir(t, filepath.Join(testenv.LowdefyApps(t), "tutorial", "08-final"))
	a, err := app.Load(dir, app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	s := New(a, Options{Connections: rec.set(), Secrets: map[string]string{"SQLITE_FILENAME": "/data/tutorial_db.sqlite"}})

	before := time.Now()
	payload := map[string]any{
		"ticket_title": "Broken", "ticket_type": "bug", "ticket_description": "It broke",
		"product": "Phone", "purchase_in_last_month": true,
	}
	res, err := s.CallRequest(bg, nil, RequestCall{PageID: "new-ticket", RequestID: "save_new_ticket", BlockID: "submit_button", Payload: payload})
	if err != nil {
		t.Fatal(err)
	}
	if res.ID != "request:new-ticket:save_new_ticket" || res.Type != "KnexRaw" {
		t.Fatalf("result %+v", res)
	}
	c := rec.last(t)
	filename := c.Connection.Prop("connection").(*jsvalue.Object).Prop("filename")
	if c.ConnectionID != "knex" || c.Connection.Prop("client") != "sqlite" || filename != "/data/tutorial_db.sqlite" {
		t.Fatalf("knex connection evaluated to %v", c.Connection)
	}
	req := c.Request.(*jsvalue.Object)
	params := req.Prop("parameters").(*jsvalue.Object)
	if got := params.Keys(); !slices.Equal(got, []string{"ticket_title", "ticket_type", "ticket_description", "product", "purchase_in_last_month", "created_date"}) {
		t.Fatalf("parameter keys %v (the config's order)", got)
	}
	if params.Prop("ticket_title") != "Broken" || params.Prop("purchase_in_last_month") != true {
		t.Fatalf("parameters %v", params)
	}
	created, ok := params.Prop("created_date").(time.Time)
	if !ok || created.Before(before.Add(-time.Second)) {
		t.Fatalf("created_date = %v, want _date: now", params.Prop("created_date"))
	}
	// The response goes back serialized: the date as {"~d": ms}.
	resp := res.Response.(*jsvalue.Object).Prop("parameters").(*jsvalue.Object).Prop("created_date").(*jsvalue.Object)
	if _, ok := resp.Prop("~d").(float64); !ok {
		t.Fatalf("serialized date %v", resp)
	}

	// The AxiosHttp request has no properties: the connection's own are passed on.
	if _, err := s.CallRequest(bg, nil, RequestCall{PageID: "new-ticket", RequestID: "get_products"}); err != nil {
		t.Fatal(err)
	}
	if c := rec.last(t); c.Connection.Prop("baseURL") != "https://dummyjson.com" || c.Request.(*jsvalue.Object).Len() != 0 {
		t.Fatalf("axios call %v %v", c.Connection, c.Request)
	}

	// A request of another page is not found on this one.
	_, err = s.CallRequest(bg, nil, RequestCall{PageID: "new-ticket", RequestID: "fetch_tickets"})
	wantError(t, err, "ConfigurationError", `Request "fetch_tickets" does not exist.`)
	if _, err := s.CallRequest(bg, nil, RequestCall{PageID: "view-tickets", RequestID: "fetch_tickets"}); err != nil {
		t.Fatal(err)
	}

	// The tutorial has no auth section: every page is public, to everyone.
	want := []string{"new-ticket", "view-tickets", "welcome", "404"}
	if got := s.Pages(nil); !slices.Equal(got, want) {
		t.Fatalf("Pages(anonymous) = %v, want %v", got, want)
	}
}
