package lite

import (
	"encoding/binary"
	"math"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// Image writes a database in SQLite's file format straight into memory
// that SQLite allocated (so the heap limit bounds it), table after table,
// row after row, and hands it to an empty in-memory database of the memdb
// VFS (Install). Bulk loading this way skips the virtual machine, the
// b-tree balancing and the page cache: each row is encoded once, in
// place. The tables are rowid tables with rowids 1, 2, 3…; each value is
// stored as an INSERT into a column of its declared type would store it
// (Affinity). Image is used by one goroutine at a time.
type Image struct {
	tls    *libc.TLS
	buf    uintptr // the pages, from sqlite3_malloc64
	cap    int64   // bytes allocated at buf
	limit  int64   // the most buf may grow to
	pages  uint32  // pages written; page 1 is the schema's root
	tables []imageTable
	rec    []byte // a record being encoded
}

// imageTable is a table in the schema.
type imageTable struct {
	name, sql string
	root      uint32
	w         *TableWriter
}

// child is a page of a b-tree level and the largest rowid under it.
type child struct {
	page uint32
	key  int64
}

// innerRoom is how much of an interior page is filled (less in tests,
// for deeper trees).
var innerRoom = pageSize

// Sizes of the file format tablewise writes.
const (
	pageSize   = 65536
	maxLocal   = pageSize - 35             // the most payload a leaf cell holds
	minLocal   = (pageSize-12)*32/255 - 23 // the least, when the payload overflows
	headerSize = 100                       // the database header, on page 1
	leafRoom   = pageSize - headerSize     // what page 1 holds after the header
	overRoom   = pageSize - 4              // payload bytes per overflow page
	leafHeader = 8                         // a leaf page's header
	innerHead  = 12                        // an interior page's header
	pageAlign  = 64 << 10                  // growth granularity
	minImage   = 4 * pageSize              // the least room an image starts with
	maxPages   = math.MaxUint32 - 1        // SQLite's largest page number
)

// NewImage starts an image with room for reserve bytes, never to grow past
// limit bytes.
func NewImage(reserve, limit int64) (*Image, error) {
	im := &Image{tls: libc.NewTLS(), limit: limit, pages: 1}
	// Without room for the whole reserve now, the image grows as it fills.
	if im.grow(max(minImage, min(reserve, limit))) != nil {
		if err := im.grow(minImage); err != nil {
			im.Free()
			return nil, err
		}
	}
	return im, nil
}

// Free releases the image's memory (when it was not installed).
func (im *Image) Free() {
	if im.buf != 0 {
		sqlite3.Xsqlite3_free(im.tls, im.buf)
		im.buf, im.cap = 0, 0
	}
	if im.tls != nil {
		im.tls.Close()
		im.tls = nil
	}
}

// errFull is the database reaching its size limit or the heap limit.
func errFull() error {
	return &Error{Code: CodeFull, Ext: CodeFull, Msg: "database or disk is full"}
}

// grow makes room for n bytes.
func (im *Image) grow(n int64) error {
	if n <= im.cap {
		return nil
	}
	if n > im.limit {
		return errFull()
	}
	size := min(max(n, im.cap+im.cap/2), im.limit)
	size = (size + pageAlign - 1) / pageAlign * pageAlign
	p := sqlite3.Xsqlite3_realloc64(im.tls, im.buf, uint64(size))
	if p == 0 && size > n {
		size = n
		p = sqlite3.Xsqlite3_realloc64(im.tls, im.buf, uint64(size))
	}
	if p == 0 {
		return errFull()
	}
	im.buf, im.cap = p, size
	hugePages(p, size)
	return nil
}

// page is page p's bytes (valid until the image grows).
func (im *Image) page(p uint32) []byte {
	return unsafe.Slice((*byte)(cptr(im.buf+uintptr(int64(p-1)*pageSize))), pageSize)
}

// newPage adds a page and returns its number.
func (im *Image) newPage() (uint32, error) {
	if im.pages >= maxPages {
		return 0, errFull()
	}
	if err := im.grow(int64(im.pages+1) * pageSize); err != nil {
		return 0, err
	}
	im.pages++
	return im.pages, nil
}

// Table starts a table named name whose CREATE TABLE statement is sql
// and returns its writer; the writer's Close ends it.
func (im *Image) Table(name, sql string, affinities []byte) *TableWriter {
	w := &TableWriter{im: im, index: len(im.tables), aff: affinities}
	im.tables = append(im.tables, imageTable{name: name, sql: sql, w: w})
	return w
}

// TableWriter appends rows to one table of an Image.
type TableWriter struct {
	im     *Image
	index  int
	aff    []byte  // the columns' affinities
	rowid  int64   // the last row's rowid
	leaf   uint32  // the page being filled, 0 for none
	n      int     // cells on it
	last   int64   // the rowid of its last cell
	top    int     // where its cell content starts
	leaves []child // the table's full leaves
	types  []uint64
	done   bool
}

// Append adds a row: vals holds a value per column, already as stored
// (Store applied).
func (w *TableWriter) Append(vals []Datum) error {
	im := w.im
	hdr, size := w.layout(vals)
	w.rowid++
	if size <= maxLocal { // the common case: encoded in place
		n := varintLen(uint64(size)) + varintLen(uint64(w.rowid)) + size
		if err := w.room(n); err != nil {
			return err
		}
		pg := im.page(w.leaf)
		c := pg[w.top-n : w.top]
		k := putVarint(c, uint64(size))
		k += putVarint(c[k:], uint64(w.rowid))
		w.encode(c[k:], hdr, vals)
		w.add(pg, n, w.rowid)
		return nil
	}
	if cap(im.rec) < size {
		im.rec = make([]byte, size)
	}
	rec := im.rec[:size]
	w.encode(rec, hdr, vals)
	return w.cell(rec, w.rowid)
}

// layout sets w.types to the serial types of a record of vals and
// returns the size of its header and its whole size.
func (w *TableWriter) layout(vals []Datum) (hdr, size int) {
	w.types = w.types[:0]
	body := 0
	for i := range vals {
		t, n := serialType(&vals[i])
		w.types = append(w.types, t)
		body += n
		if t < 0x80 {
			hdr++
		} else {
			hdr += varintLen(t)
		}
	}
	hl := 1
	for varintLen(uint64(hdr+hl)) > hl {
		hl++
	}
	return hdr + hl, hdr + hl + body
}

// encode writes a record of vals, whose serial types are in w.types and
// whose header is hdr bytes long, to dst (exactly its size).
func (w *TableWriter) encode(dst []byte, hdr int, vals []Datum) {
	k := putVarint(dst, uint64(hdr))
	for _, t := range w.types {
		if t < 0x80 {
			dst[k] = byte(t)
			k++
		} else {
			k += putVarint(dst[k:], t)
		}
	}
	for i := range vals {
		v := &vals[i]
		switch t := w.types[i]; {
		case t >= 12:
			k += copy(dst[k:], v.Text)
		case t == 7:
			binary.BigEndian.PutUint64(dst[k:], math.Float64bits(v.Float))
			k += 8
		case t >= 1 && t <= 6:
			n := intSize[t]
			for j := n - 1; j >= 0; j-- {
				dst[k+n-1-j] = byte(v.Int >> (8 * j))
			}
			k += n
		}
	}
}

// intSize is the size of an integer of each serial type.
var intSize = [7]int{0, 1, 2, 3, 4, 6, 8}

// room makes sure the leaf being filled has room for a cell of n bytes,
// starting a leaf when not.
func (w *TableWriter) room(n int) error {
	if w.leaf != 0 && w.top-n < w.base()+leafHeader+2*(w.n+1) {
		w.endLeaf()
	}
	if w.leaf == 0 {
		p, err := w.im.newPage()
		if err != nil {
			return err
		}
		w.leaf, w.n, w.top = p, 0, pageSize
	}
	return nil
}

// add records a cell of n bytes just written below w.top on page pg.
func (w *TableWriter) add(pg []byte, n int, rowid int64) {
	w.top -= n
	binary.BigEndian.PutUint16(pg[w.base()+leafHeader+2*w.n:], uint16(w.top))
	w.n++
	w.last = rowid
}

// cell adds the leaf cell of a record to the table.
func (w *TableWriter) cell(rec []byte, rowid int64) error {
	im := w.im
	local := len(rec)
	if local > maxLocal {
		local = minLocal + (len(rec)-minLocal)%overRoom
		if local > maxLocal {
			local = minLocal
		}
	}
	size := varintLen(uint64(len(rec))) + varintLen(uint64(rowid)) + local
	if local < len(rec) {
		size += 4
	}
	if err := w.room(size); err != nil {
		return err
	}
	// Overflow pages first: adding pages may move the buffer.
	var first uint32
	if rest := rec[local:]; len(rest) > 0 {
		var prev uint32
		for len(rest) > 0 {
			p, err := im.newPage()
			if err != nil {
				return err
			}
			if prev == 0 {
				first = p
			} else {
				binary.BigEndian.PutUint32(im.page(prev), p)
			}
			pg := im.page(p)
			k := copy(pg[4:], rest)
			binary.BigEndian.PutUint32(pg, 0)
			clear(pg[4+k:])
			rest, prev = rest[k:], p
		}
	}
	pg := im.page(w.leaf)
	c := pg[w.top-size : w.top]
	k := putVarint(c, uint64(len(rec)))
	k += putVarint(c[k:], uint64(rowid))
	k += copy(c[k:], rec[:local])
	if first != 0 {
		binary.BigEndian.PutUint32(c[k:], first)
	}
	w.add(pg, size, rowid)
	return nil
}

// base is where the b-tree page header of the leaf being filled starts.
func (w *TableWriter) base() int {
	if w.leaf == 1 {
		return headerSize
	}
	return 0
}

// endLeaf writes the header of the leaf being filled.
func (w *TableWriter) endLeaf() {
	pg := w.im.page(w.leaf)
	b := w.base()
	pg[b] = 0x0D // a table b-tree leaf
	binary.BigEndian.PutUint16(pg[b+1:], 0)
	binary.BigEndian.PutUint16(pg[b+3:], uint16(w.n))
	binary.BigEndian.PutUint16(pg[b+5:], uint16(w.top)) // 65536 is written 0
	pg[b+7] = 0
	clear(pg[b+leafHeader+2*w.n : w.top])
	w.leaves = append(w.leaves, child{page: w.leaf, key: w.last})
	w.leaf = 0
}

// Close ends the table: its last leaf, the interior pages above its
// leaves, its root.
func (w *TableWriter) Close() error {
	if w.done {
		return nil
	}
	w.done = true
	if w.leaf != 0 || len(w.leaves) == 0 {
		if w.leaf == 0 { // an empty table: an empty leaf is its root
			p, err := w.im.newPage()
			if err != nil {
				return err
			}
			w.leaf, w.n, w.top = p, 0, pageSize
		}
		w.endLeaf()
	}
	root, err := w.im.tree(w.leaves)
	if err != nil {
		return err
	}
	w.im.tables[w.index].root = root
	return nil
}

// tree writes the interior pages above a level of pages and returns the
// root.
func (im *Image) tree(level []child) (uint32, error) {
	for len(level) > 1 {
		var err error
		if level, err = im.level(level); err != nil {
			return 0, err
		}
	}
	return level[0].page, nil
}

// interior writes an interior page at pg (its b-tree header at base):
// a cell per child but the last, which is the right-most pointer.
func (im *Image) interior(pg []byte, base int, kids []child) {
	top := pageSize
	var cell [13]byte
	for i, k := range kids[:len(kids)-1] {
		binary.BigEndian.PutUint32(cell[:], k.page)
		n := 4 + putVarint(cell[4:], uint64(k.key))
		top -= n
		copy(pg[top:], cell[:n])
		binary.BigEndian.PutUint16(pg[base+innerHead+2*i:], uint16(top))
	}
	pg[base] = 0x05 // a table b-tree interior page
	binary.BigEndian.PutUint16(pg[base+1:], 0)
	binary.BigEndian.PutUint16(pg[base+3:], uint16(len(kids)-1))
	binary.BigEndian.PutUint16(pg[base+5:], uint16(top))
	pg[base+7] = 0
	binary.BigEndian.PutUint32(pg[base+8:], kids[len(kids)-1].page)
	clear(pg[base+innerHead+2*(len(kids)-1) : top])
}

// finish writes the schema (page 1) and the database header, and returns
// the database's size in bytes.
func (im *Image) finish() (int64, error) {
	if err := im.grow(pageSize); err != nil {
		return 0, err
	}
	for _, t := range im.tables {
		if err := t.w.Close(); err != nil {
			return 0, err
		}
	}
	// The schema's records: type, name, tbl_name, rootpage, sql.
	var recs [][]byte
	total := 0
	for _, t := range im.tables {
		vals := []Datum{
			{Kind: ValText, Text: []byte("table")},
			{Kind: ValText, Text: []byte(t.name)},
			{Kind: ValText, Text: []byte(t.name)},
			{Kind: ValInt, Int: int64(t.root)},
			{Kind: ValText, Text: []byte(t.sql)},
		}
		var tw TableWriter
		hdr, size := tw.layout(vals)
		rec := make([]byte, size)
		tw.encode(rec, hdr, vals)
		recs = append(recs, rec)
		total += len(rec) + 2 + 18 + 4
	}
	schema := &TableWriter{im: im}
	if total+leafHeader <= leafRoom { // one leaf: page 1
		schema.leaf, schema.top = 1, pageSize
		for i, rec := range recs {
			if err := schema.cell(rec, int64(i+1)); err != nil {
				return 0, err
			}
		}
		schema.endLeaf()
	} else { // leaves elsewhere, as small as page 1, and a root on page 1
		for i, rec := range recs {
			if schema.leaf != 0 && schema.top-(len(rec)+22) < leafHeader+2*(schema.n+1)+headerSize {
				schema.endLeaf()
			}
			if err := schema.cell(rec, int64(i+1)); err != nil {
				return 0, err
			}
		}
		schema.endLeaf()
		level := schema.leaves
		for {
			room := innerHead
			for _, k := range level[:len(level)-1] {
				room += 6 + varintLen(uint64(k.key))
			}
			if room <= leafRoom {
				break
			}
			// Too many for page 1: a level more.
			var err error
			if level, err = im.level(level); err != nil {
				return 0, err
			}
		}
		im.interior(im.page(1), headerSize, level)
	}
	h := im.page(1)[:headerSize]
	clear(h)
	copy(h, "SQLite format 3\x00")
	binary.BigEndian.PutUint16(h[16:], 1) // a page size of 65536
	h[18], h[19] = 1, 1                   // rollback journal formats
	h[21], h[22], h[23] = 64, 32, 32
	binary.BigEndian.PutUint32(h[24:], 1) // file change counter
	binary.BigEndian.PutUint32(h[28:], im.pages)
	binary.BigEndian.PutUint32(h[40:], 1) // schema cookie
	binary.BigEndian.PutUint32(h[44:], 4) // schema format
	binary.BigEndian.PutUint32(h[56:], 1) // UTF-8
	binary.BigEndian.PutUint32(h[92:], 1) // the page count above is valid
	binary.BigEndian.PutUint32(h[96:], uint32(sqlite3.Xsqlite3_libversion_number(im.tls)))
	return int64(im.pages) * pageSize, nil
}

// level writes one level of interior pages above level.
func (im *Image) level(level []child) ([]child, error) {
	var next []child
	for len(level) > 0 {
		n, room := 1, innerHead
		for n < len(level) && room+6+varintLen(uint64(level[n-1].key)) <= innerRoom {
			room += 6 + varintLen(uint64(level[n-1].key))
			n++
		}
		if len(level)-n == 1 {
			n--
		}
		p, err := im.newPage()
		if err != nil {
			return nil, err
		}
		im.interior(im.page(p), 0, level[:n])
		next = append(next, child{page: p, key: level[n-1].key})
		level = level[n:]
	}
	return next, nil
}

// Install makes the image the content of c's main database, an empty
// in-memory database of the memdb VFS that no connection is using, and
// gives SQLite the image's memory. The image is done with afterwards.
func (im *Image) Install(c *Conn) error {
	size, err := im.finish()
	if err != nil {
		return err
	}
	store := c.memStore()
	if store == nil {
		return &Error{Code: sqlite3.SQLITE_MISUSE, Ext: sqlite3.SQLITE_MISUSE, Msg: "not an in-memory database"}
	}
	if store.FpMutex != 0 {
		sqlite3.Xsqlite3_mutex_enter(c.tls, store.FpMutex)
		defer sqlite3.Xsqlite3_mutex_leave(c.tls, store.FpMutex)
	}
	if store.Fsz != 0 || store.FnRdLock != 0 || store.FnWrLock != 0 {
		return &Error{Code: sqlite3.SQLITE_MISUSE, Ext: sqlite3.SQLITE_MISUSE, Msg: "the in-memory database is not empty"}
	}
	if store.FaData != 0 {
		sqlite3.Xsqlite3_free(c.tls, store.FaData)
	}
	store.FaData, store.Fsz, store.FszAlloc = im.buf, size, im.cap
	store.FszMax = max(store.FszMax, im.cap)
	im.buf, im.cap = 0, 0
	im.Free()
	return nil
}

// serialType is v's serial type in a record and the size of its data.
func serialType(v *Datum) (uint64, int) {
	switch v.Kind {
	case ValInt:
		i := v.Int
		u := uint64(i)
		if i < 0 {
			u = ^u
		}
		switch {
		case i == 0:
			return 8, 0
		case i == 1:
			return 9, 0
		case u <= 127:
			return 1, 1
		case u <= 32767:
			return 2, 2
		case u <= 8388607:
			return 3, 3
		case u <= 2147483647:
			return 4, 4
		case u <= 0x7fffffffffff:
			return 5, 6
		}
		return 6, 8
	case ValFloat:
		return 7, 8
	case ValText:
		return uint64(len(v.Text))*2 + 13, len(v.Text)
	case ValBlob:
		return uint64(len(v.Text))*2 + 12, len(v.Text)
	}
	return 0, 0
}

// varintLen is the length of SQLite's varint for v.
func varintLen(v uint64) int {
	if v <= 0x7f {
		return 1
	}
	if v > 0x00ffffffffffffff {
		return 9
	}
	n := 1
	for v > 0x7f {
		v >>= 7
		n++
	}
	return n
}

// putVarint writes v as SQLite's varint (big-endian, 7 bits a byte, the
// ninth byte 8 bits) and returns its length.
func putVarint(b []byte, v uint64) int {
	if v <= 0x7f {
		b[0] = byte(v)
		return 1
	}
	if v > 0x00ffffffffffffff {
		b[8] = byte(v)
		v >>= 8
		for i := 7; i >= 0; i-- {
			b[i] = byte(v&0x7f) | 0x80
			v >>= 7
		}
		return 9
	}
	n := varintLen(v)
	for i := n - 1; i >= 0; i-- {
		b[i] = byte(v&0x7f) | 0x80
		v >>= 7
	}
	b[n-1] &= 0x7f
	return n
}
