package store

// Limits bounds what a Store accepts. The zero value means the defaults.
type Limits struct {
	// MaxBlobBytes caps one blob; 0 means DefaultMaxBlobBytes.
	MaxBlobBytes int
	// MaxDocumentBytes caps a definition document or work session data; 0
	// means DefaultMaxDocumentBytes.
	MaxDocumentBytes int
}

// WithDefaults returns l with zero fields set to their defaults.
func (l Limits) WithDefaults() Limits {
	if l.MaxBlobBytes <= 0 {
		l.MaxBlobBytes = DefaultMaxBlobBytes
	}
	if l.MaxDocumentBytes <= 0 {
		l.MaxDocumentBytes = DefaultMaxDocumentBytes
	}
	return l
}
