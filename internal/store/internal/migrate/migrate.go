// Package migrate holds what the SQL implementations share about schema
// migrations: the Migration type and the check of a versioned list against
// what a database has applied.
package migrate

import "fmt"

// Migration is one step of a schema: statements applied in one transaction
// and recorded in the schema_migrations table under Version.
type Migration struct {
	// Version numbers migrations 1, 2, 3… in order of application.
	Version int
	// Name says what the step does.
	Name string
	// Statements run in order.
	Statements []string
}

// Pending returns the migrations of list after version applied, the highest
// version the database has recorded. It fails when list is not numbered 1..n
// or when the database is newer than list.
func Pending(list []Migration, applied int) ([]Migration, error) {
	for i, m := range list {
		if m.Version != i+1 {
			return nil, fmt.Errorf("migration %d (%s) must have version %d", i, m.Name, i+1)
		}
	}
	if applied > len(list) {
		return nil, fmt.Errorf("database schema version %d is newer than this mcpbridge supports (%d): upgrade mcpbridge", applied, len(list))
	}
	if applied < 0 {
		return nil, fmt.Errorf("database schema version %d is negative: the schema_migrations table is corrupt", applied)
	}
	return list[applied:], nil
}
