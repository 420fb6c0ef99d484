package app

import (
	"strings"
	"time"
	_ "time/tzdata" // mcp.timeZone names an IANA zone; the binary carries the database
)

// timeZoneOf returns the location an app's mcp.timeZone names, or UTC when it names none.
// An empty name, "UTC" and "Z" are UTC; "Local" is refused (the zone of whatever machine
// runs the gateway is not the app's).
func timeZoneOf(name string) (*time.Location, error) {
	switch name {
	case "", "UTC", "Z", "Etc/UTC":
		return time.UTC, nil
	}
	if strings.EqualFold(name, "local") {
		return nil, errLocalZone
	}
	return time.LoadLocation(name)
}

type timeZoneError string

func (e timeZoneError) Error() string { return string(e) }

const errLocalZone = timeZoneError("Local is the zone of the machine that runs mcpbridge, not the app's")

// maxZoneName bounds the mcp.timeZone a problem repeats whole.
const maxZoneName = 100

// checkTimeZone checks mcp.timeZone: an IANA time zone name such as Europe/Paris.
func (b *builder) checkTimeZone() {
	m := asMap(get(b.c, "mcp"))
	name, ok := get(m, "timeZone").(string)
	if !ok {
		return
	}
	if len(name) > maxZoneName { // the longest IANA name is 30 bytes
		b.fail(m, "mcp.timeZone", "time zone %.40q… (%d bytes) is not an IANA time zone name such as UTC, Europe/Paris or America/New_York", name, len(name))
		return
	}
	if _, err := timeZoneOf(name); err != nil {
		b.fail(m, "mcp.timeZone", "time zone %q is not an IANA time zone name such as UTC, Europe/Paris or America/New_York (%v)", name, err)
	}
}
