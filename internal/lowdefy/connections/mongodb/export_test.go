package mongodb

import "github.com/mcpbridge/mcpbridge/internal/jsvalue"

// PoolKey is the key under which a request on connection properties conn keeps its client.
func PoolKey(conn *jsvalue.Object) string {
	opts, _ := conn.Prop("options").(*jsvalue.Object)
	uri, _ := conn.Prop("databaseUri").(string)
	return poolKey(uri, opts)
}
