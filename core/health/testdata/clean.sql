-- A database tablewise health finds nothing in.
CREATE TABLE parent(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT INTO parent VALUES (1, 'a'), (2, 'b');
CREATE TABLE child(id INTEGER PRIMARY KEY, parent_id INTEGER NOT NULL REFERENCES parent(id), made DATE NOT NULL, qty INTEGER NOT NULL, note TEXT);
CREATE INDEX child_parent ON child(parent_id);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20)
INSERT INTO child SELECT i, 1 + i % 2, '2024-01-' || printf('%02d', i), i, CASE WHEN i % 3 = 0 THEN NULL ELSE 'n' END FROM n;
