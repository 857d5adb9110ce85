package sqlite

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tablewise/tablewise/core/atomicfile"
	"github.com/tablewise/tablewise/core/engine"
	"github.com/tablewise/tablewise/core/engine/sqlite/internal/lite"
)

// How a connection reads the database file and the files beside it.
//
// SQLite opens a WAL database's -wal file (creating it if missing) and its
// -shm index (creating and writing it) even on a read-only connection. No
// setting does both "read the -wal" and "create nothing", so the choice is
// made from what is on disk when each connection opens:
//
//   - rollback-journal database: read it as it is (mode=ro);
//   - WAL database with its -wal and -shm (a writer is connected, or left
//     them): read both without writing (readonly_shm=1: the -shm is opened
//     read-only and, when no writer holds it, SQLite builds a private index
//     in memory), so rows committed to the -wal are seen;
//   - WAL database without a -wal file (checkpointed; no writer): read the
//     file alone with immutable=1, which creates nothing and takes no locks;
//   - a -wal with committed frames but no -shm: it cannot be read without
//     creating the -shm, so Open refuses and says what to do (the owner
//     checkpoints it, or the user opts into immutable=1, which hides those
//     rows).
//
// Every connection also goes through lite.ReadOnlyVFS, which cannot create,
// write or delete a file, so a race with a writer (a -wal appearing or
// vanishing between this decision and the open) ends in an error, never
// in a file written.
type openMode int

const (
	// modeShared opens with mode=ro&readonly_shm=1.
	modeShared openMode = iota
	// modeImmutable opens with immutable=1: only the database file is read.
	modeImmutable
	// modeMemory opens an in-memory database tablewise filled (memory.go).
	modeMemory
)

// sideFiles is what lies beside a database file.
type sideFiles struct {
	walHeader bool        // the header says WAL mode (byte 19 is 2)
	wal, shm  fs.FileInfo // nil when absent
}

func statSide(path string) (sideFiles, error) {
	var s sideFiles
	var err error
	if s.walHeader, err = walHeader(path); err != nil {
		return s, err
	}
	if s.wal, err = lstatIfExists(path + "-wal"); err != nil {
		return s, err
	}
	if s.shm, err = lstatIfExists(path + "-shm"); err != nil {
		return s, err
	}
	return s, nil
}

func lstatIfExists(p string) (fs.FileInfo, error) {
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return fi, err
}

// walHeader reports whether the database header asks for WAL mode.
func walHeader(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	var h [20]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return false, nil // too short to be a database: SQLite will say so
	}
	return string(h[:16]) == "SQLite format 3\x00" && h[19] == 2, nil
}

// plan is how one connection opens the database.
type plan struct {
	mode openMode
	// auto is true when immutable mode was chosen here rather than asked
	// for: the connection is replaced once a -wal file appears.
	auto bool
	// wal is the -wal file's state when the plan was made (nil: absent).
	wal fs.FileInfo
}

// describe says how a connection following p reads the files beside the
// database, for doctor.
func (p plan) describe() string {
	switch {
	case p.mode == modeMemory:
		return "none: the data was loaded into memory, and the files it came from are only read"
	case p.mode == modeImmutable && !p.auto:
		return "immutable=1 as asked: the database file alone, without locks; a -wal file is not read"
	case p.mode == modeImmutable:
		return "WAL database with no -wal file: the database file alone (immutable), nothing created"
	case p.wal != nil:
		return "WAL database: its -wal and -shm are read, never written (readonly_shm=1, no checkpoint on close)"
	}
	return "rollback-journal database: the file alone, never a journal created"
}

// stale reports whether a connection opened with p no longer matches the
// files on disk: an automatic immutable connection whose -wal appeared or
// changed (a writer connected).
func (p plan) stale(path string) bool {
	if !p.auto {
		return false
	}
	wal, err := lstatIfExists(atomicfile.Resolve(path) + "-wal")
	if err != nil || (wal == nil) != (p.wal == nil) {
		return true
	}
	return wal != nil && (wal.Size() != p.wal.Size() || !wal.ModTime().Equal(p.wal.ModTime()))
}

// choosePlan decides how to open path. immutable is the user's own
// immutable=1. warn is a note for the user ("" when none).
func choosePlan(path string, immutable bool) (p plan, warn string, err error) {
	// SQLite names the files beside the database after its real path, with
	// symbolic links resolved.
	path = atomicfile.Resolve(path)
	side, err := statSide(path)
	if err != nil {
		return p, "", fmt.Errorf("open database: %w", err)
	}
	p.wal = side.wal
	if immutable {
		p.mode = modeImmutable
		if side.wal != nil {
			if n, _ := walCommitted(path + "-wal"); n > 0 {
				warn = fmt.Sprintf("immutable=1: %s-wal holds %s that are not shown (not yet checkpointed into %s)", path, framesText(n), filepath.Base(path))
			}
		}
		return p, warn, nil
	}
	switch {
	case side.wal != nil && side.shm != nil:
		p.mode = modeShared // a live writer's rows, or a private index of an orphaned WAL
	case side.wal == nil && !side.walHeader:
		p.mode = modeShared // rollback journal mode
	case side.wal == nil:
		p.mode, p.auto = modeImmutable, true // WAL mode, checkpointed: the file is complete
	default: // a -wal without its -shm
		n, err := walCommitted(path + "-wal")
		if err != nil {
			return p, "", fmt.Errorf("open database: read %s-wal: %w", path, err)
		}
		if n > 0 {
			base := filepath.Base(path)
			return p, "", &fileError{kind: engine.ErrNeedsOwner, msg: fmt.Sprintf(
				"open database %s: %s-wal holds %s but %s-shm is missing, and SQLite can read them only by creating %s-shm — tablewise never writes. "+
					"Ask the owner to checkpoint it (sqlite3 %s \"PRAGMA wal_checkpoint(TRUNCATE)\"), or open file:%s?immutable=1 to read the database file without them",
				path, base, framesText(n), base, base, path, path)}
		}
		p.mode, p.auto = modeImmutable, true // the -wal holds nothing committed
	}
	return p, "", nil
}

func framesText(n int) string {
	if n == 1 {
		return "1 committed page"
	}
	return fmt.Sprintf("%d committed pages", n)
}

// walCommitted counts the frames of a -wal file that belong to committed
// transactions: those SQLite would read. It checks the header and each
// frame's salt and running checksum as SQLite's WAL recovery does, and
// stops at the first frame that does not match.
func walCommitted(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var hdr [32]byte
	if _, err := io.ReadFull(f, hdr[:]); err != nil {
		return 0, nil // empty or torn header: no frames
	}
	be := binary.BigEndian
	magic := be.Uint32(hdr[0:])
	pageSize := be.Uint32(hdr[8:])
	if magic&^1 != 0x377f0682 || be.Uint32(hdr[4:]) != 3007000 || pageSize < 512 || pageSize > 65536 || pageSize&(pageSize-1) != 0 {
		return 0, nil
	}
	var order binary.ByteOrder = binary.LittleEndian
	if magic&1 == 1 {
		order = binary.BigEndian
	}
	s1, s2 := walChecksum(order, hdr[:24], 0, 0)
	if s1 != be.Uint32(hdr[24:]) || s2 != be.Uint32(hdr[28:]) {
		return 0, nil
	}
	frame := make([]byte, 24+int(pageSize))
	committed, n := 0, 0
	for {
		if _, err := io.ReadFull(f, frame); err != nil {
			return committed, nil
		}
		if be.Uint32(frame[0:]) == 0 || string(frame[8:16]) != string(hdr[16:24]) {
			return committed, nil
		}
		s1, s2 = walChecksum(order, frame[:8], s1, s2)
		s1, s2 = walChecksum(order, frame[24:], s1, s2)
		if s1 != be.Uint32(frame[16:]) || s2 != be.Uint32(frame[20:]) {
			return committed, nil
		}
		n++
		if be.Uint32(frame[4:]) != 0 { // a commit frame
			committed = n
		}
	}
}

// walChecksum is SQLite's WAL checksum over b (a multiple of 8 bytes),
// continuing from s1, s2.
func walChecksum(order binary.ByteOrder, b []byte, s1, s2 uint32) (uint32, uint32) {
	for i := 0; i+8 <= len(b); i += 8 {
		s1 += order.Uint32(b[i:]) + s2
		s2 += order.Uint32(b[i+4:]) + s1
	}
	return s1, s2
}

// fileError is an error about the database file: its message, and the
// shared sentinel (engine.ErrNotFound, ErrBadPath, ErrNeedsOwner) callers
// branch on.
type fileError struct {
	kind error
	msg  string
}

func (e *fileError) Error() string { return e.msg }
func (e *fileError) Unwrap() error { return e.kind }

// readOnlyError explains an error SQLite raised because reading would have
// needed a write (SQLITE_READONLY or SQLITE_CANTOPEN on a file beside the
// database), from what is on disk. It returns nil when it has nothing to
// add.
func (d *Engine) readOnlyError(code int) error {
	if d.mem != nil {
		return nil // nothing on disk to explain
	}
	real := atomicfile.Resolve(d.path)
	journal := real + "-journal"
	if fi, err := os.Stat(journal); err == nil && fi.Size() > 0 && code != lite.CodeCantOpen {
		return &fileError{kind: engine.ErrNeedsOwner, msg: fmt.Sprintf(
			"cannot read %s: it has a hot journal (%s) left by a write that did not finish, and it needs recovery by its owner: "+
				"opening it once read-write rolls the journal back (for example sqlite3 %s \"PRAGMA user_version\"); tablewise never writes, so it cannot",
			d.path, filepath.Base(journal), d.path)}
	}
	side, err := statSide(real)
	if err != nil {
		return nil
	}
	if side.walHeader || side.wal != nil {
		return &fileError{kind: engine.ErrNeedsOwner, msg: fmt.Sprintf(
			"cannot read %s: its write-ahead log (%s-wal and -shm) needs recovery by a writer, and tablewise never writes — "+
				"ask the owner to open it read-write or checkpoint it (sqlite3 %s \"PRAGMA wal_checkpoint(TRUNCATE)\"), or open file:%s?immutable=1 to read the database file alone",
			d.path, filepath.Base(d.path), d.path, d.path)}
	}
	return nil
}
