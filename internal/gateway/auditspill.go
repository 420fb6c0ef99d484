package gateway

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mcpbridge/mcpbridge/internal/store"
)

// spillFile keeps audit rows the store did not take: JSON lines appended and synced, read
// back in order when the store answers again, then truncated. Only the auditor's writer
// goroutine uses it. The file is locked (on Unix) so that two processes sharing a spill
// directory each use their own file; a replica that starts and finds an unlocked spill file
// with rows replays it.
type spillFile struct {
	f    *os.File
	path string
	max  int64 // bytes the file may hold
	size int64 // bytes in the file
	read int64 // bytes of it already written to the store
	rows int   // rows in the file not yet written to the store
}

// spillName is the name of the n-th spill file of a directory.
func spillName(n int) string {
	if n == 0 {
		return "audit-spill.jsonl"
	}
	return fmt.Sprintf("audit-spill-%d.jsonl", n)
}

// openSpill opens the first spill file of dir no other process holds, and counts the rows
// it already has. With create, missing files and dir are created; without, only a file
// that exists is opened (nil when there is none). A torn last line, left by a crash in the
// middle of an append, is cut off and reported in torn.
func openSpill(dir string, max int64, create bool) (s *spillFile, torn bool, err error) {
	flag := os.O_RDWR
	if create {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, false, fmt.Errorf("creating the audit spill directory: %w", err)
		}
		flag |= os.O_CREATE
	}
	for n := 0; n < 64; n++ {
		path := filepath.Join(dir, spillName(n))
		f, err := os.OpenFile(path, flag, 0o600)
		if !create && errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, false, fmt.Errorf("opening the audit spill file: %w", err)
		}
		if !lockFile(f) {
			f.Close()
			continue
		}
		s := &spillFile{f: f, path: path, max: max}
		torn, err := s.scan()
		if err != nil {
			f.Close()
			return nil, false, err
		}
		return s, torn, nil
	}
	if !create {
		return nil, false, nil
	}
	return nil, false, fmt.Errorf("64 audit spill files in %s are held by other processes", dir)
}

// scan counts the complete lines of the file and cuts off a torn last one.
func (s *spillFile) scan() (torn bool, err error) {
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return false, fmt.Errorf("reading the audit spill file %s: %w", s.path, err)
	}
	r := bufio.NewReaderSize(s.f, 64<<10)
	var good int64
	for {
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A line longer than a row can be: read past it; it is skipped on replay.
			rest, err2 := r.ReadBytes('\n')
			line = append(append([]byte(nil), line...), rest...)
			err = err2
		}
		if err == io.EOF {
			torn = len(line) > 0
			break
		}
		if err != nil {
			return false, fmt.Errorf("reading the audit spill file %s: %w", s.path, err)
		}
		good += int64(len(line))
		s.rows++
	}
	if torn {
		if err := s.f.Truncate(good); err != nil {
			return false, fmt.Errorf("cutting the torn last line of the audit spill file %s: %w", s.path, err)
		}
	}
	s.size = good
	return torn, nil
}

// errSpillFull is the error of an append that would make the file larger than its bound.
var errSpillFull = errors.New("the audit spill file is full")

// append writes rows at the end of the file and syncs it: when it returns nil, the rows
// survive a crash.
func (s *spillFile) append(rows []store.Entry) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for i := range rows {
		if err := enc.Encode(&rows[i]); err != nil {
			return fmt.Errorf("encoding an audit row: %w", err)
		}
	}
	if s.size+int64(buf.Len()) > s.max {
		return fmt.Errorf("%w (%d bytes, audit.spill_max is %d)", errSpillFull, s.size, s.max)
	}
	if _, err := s.f.WriteAt(buf.Bytes(), s.size); err != nil {
		s.f.Truncate(s.size) // what was written is not counted; do not leave half a line
		return fmt.Errorf("writing the audit spill file %s: %w", s.path, err)
	}
	if err := s.f.Sync(); err != nil {
		s.f.Truncate(s.size)
		return fmt.Errorf("syncing the audit spill file %s: %w", s.path, err)
	}
	s.size += int64(buf.Len())
	s.rows += len(rows)
	return nil
}

// next reads up to n rows after those already written to the store. Lines that do not
// decode are skipped and counted in bad. It returns the offset after the rows, for done.
func (s *spillFile) next(n int) (rows []store.Entry, end int64, bad int, err error) {
	r := bufio.NewReaderSize(io.NewSectionReader(s.f, s.read, s.size-s.read), 64<<10)
	end = s.read
	for len(rows)+bad < n {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, 0, 0, fmt.Errorf("reading the audit spill file %s: %w", s.path, err)
		}
		end += int64(len(line))
		var e store.Entry
		if json.Unmarshal(line, &e) != nil {
			bad++
			continue
		}
		rows = append(rows, e)
	}
	return rows, end, bad, nil
}

// done marks the rows before end as written to the store; when that is all of them, the
// file is truncated.
func (s *spillFile) done(end int64, n int) error {
	s.read, s.rows = end, s.rows-n
	if s.read < s.size {
		return nil
	}
	if err := s.f.Truncate(0); err != nil {
		return fmt.Errorf("truncating the replayed audit spill file %s: %w", s.path, err)
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("syncing the audit spill file %s: %w", s.path, err)
	}
	s.size, s.read, s.rows = 0, 0, 0
	return nil
}

// close closes the file, removing it when it holds no rows.
func (s *spillFile) close() {
	if s.rows == 0 {
		os.Remove(s.path)
	}
	s.f.Close()
}
