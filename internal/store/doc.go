// Package store defines mcpbridge's persistent state: server definitions,
// content-addressed blobs, API keys, Lowdefy work sessions and the audit log.
//
// Each concern is a small interface (Definitions, Blobs, Keys, WorkSessions,
// Audit). A Store bundles one implementation of each, all sharing one
// database. Two implementations exist: package sqlite (the embedded default,
// one process) and package postgres (several replicas sharing one database,
// with change notification through LISTEN/NOTIFY). Package openstore picks one
// from a URL, and package storetest holds the conformance suite both pass.
//
// All methods are safe for concurrent use by multiple goroutines. Times are
// stored with microsecond precision and returned in UTC.
package store
