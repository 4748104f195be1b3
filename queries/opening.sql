-- The opening table (3x3): each first move's value for X and each reply's for O.
--
-- param first = null: show only the replies to this first move (a cell 0-8; null for all)
--
-- Cells are real cells 0-8, row-major from the top-left; each ply-2 board is looked up
-- through its canonical form (the smallest of its 8 symmetric images).
-- columns:
--   first             X's first move
--   first_outcome     win, draw or loss for X after it, with perfect play
--   first_remoteness  plies from the empty board to the end
--   reply             O's reply
--   reply_outcome     win, draw or loss for O after it, with perfect play
--   reply_remoteness  plies from O's turn to the end
--   best_reply        1 if the reply keeps O's result (the draw), else 0
WITH RECURSIVE
cells(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM cells WHERE i < 8),
symmetries(p) AS (
    VALUES ('012345678'), ('210543876'), ('678345012'), ('876543210'),
           ('036147258'), ('630741852'), ('258147036'), ('852741630')
),
openings(first, reply, b) AS (
    SELECT f.i, r.i,
           substr(x, 1, r.i) || 'O' || substr(x, r.i + 2)
    FROM (SELECT i, substr('.........', 1, i) || 'X' || substr('.........', i + 2) AS x FROM cells) AS f
    JOIN cells AS r ON r.i <> f.i
    WHERE :first IS NULL OR f.i = :first
),
canonical(first, reply, board) AS (
    SELECT first, reply,
           MIN(substr(b, substr(p, 1, 1) + 1, 1) || substr(b, substr(p, 2, 1) + 1, 1)
            || substr(b, substr(p, 3, 1) + 1, 1) || substr(b, substr(p, 4, 1) + 1, 1)
            || substr(b, substr(p, 5, 1) + 1, 1) || substr(b, substr(p, 6, 1) + 1, 1)
            || substr(b, substr(p, 7, 1) + 1, 1) || substr(b, substr(p, 8, 1) + 1, 1)
            || substr(b, substr(p, 9, 1) + 1, 1))
    FROM openings, symmetries
    GROUP BY first, reply
)
SELECT c.first,
       CASE m.value WHEN 1 THEN 'win' WHEN 0 THEN 'draw' ELSE 'loss' END AS first_outcome,
       m.remoteness AS first_remoteness,
       c.reply,
       CASE -p.value WHEN 1 THEN 'win' WHEN 0 THEN 'draw' ELSE 'loss' END AS reply_outcome,
       p.remoteness + 1 AS reply_remoteness,
       CAST(-p.value = -m.value AS INTEGER) AS best_reply
FROM canonical AS c
JOIN positions AS p ON p.board = c.board
JOIN moves AS m ON m.board = '.........' AND m.cell = c.first
ORDER BY c.first, c.reply
