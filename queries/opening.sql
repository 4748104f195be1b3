-- The opening table (3x3): each first move's value for X and each reply's for O.
--
-- variants: 3x3
-- param first = null (int): show only the replies to this first move (a cell 0-8; null for all)
--
-- Cells are real cells 0-8, row-major from the top-left; each board after one or two moves
-- is looked up by its canonical code: the smallest code of its 8 symmetric images, a code
-- being the board read as a base-3 number with O = 0, . = 1, X = 2, cell 0 first.
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
firsts(first, b) AS (
    SELECT i, substr('.........', 1, i) || 'X' || substr('.........', i + 2)
    FROM cells
    WHERE CAST(:first AS INTEGER) IS NULL OR i = CAST(:first AS INTEGER)
),
boards(first, reply, b) AS (
    SELECT first, -1, b FROM firsts
    UNION ALL
    SELECT f.first, r.i, substr(f.b, 1, r.i) || 'O' || substr(f.b, r.i + 2)
    FROM firsts AS f JOIN cells AS r ON r.i <> f.first
),
images(first, reply, p, code) AS (
    SELECT first, reply, p,
           SUM(CASE substr(b, CAST(substr(p, c.i + 1, 1) AS INTEGER) + 1, 1) WHEN 'O' THEN 0 WHEN '.' THEN 1 ELSE 2 END
               * CASE c.i WHEN 0 THEN 6561 WHEN 1 THEN 2187 WHEN 2 THEN 729 WHEN 3 THEN 243 WHEN 4 THEN 81
                          WHEN 5 THEN 27 WHEN 6 THEN 9 WHEN 7 THEN 3 ELSE 1 END)
    FROM boards, symmetries, cells AS c
    GROUP BY first, reply, p
),
canonical(first, reply, code) AS (
    SELECT first, reply, MIN(code) FROM images GROUP BY first, reply
)
SELECT f.first,
       CASE -pf.value WHEN 1 THEN 'win' WHEN 0 THEN 'draw' ELSE 'loss' END AS first_outcome,
       pf.remoteness + 1 AS first_remoteness,
       r.reply,
       CASE -pr.value WHEN 1 THEN 'win' WHEN 0 THEN 'draw' ELSE 'loss' END AS reply_outcome,
       pr.remoteness + 1 AS reply_remoteness,
       CASE WHEN -pr.value = pf.value THEN 1 ELSE 0 END AS best_reply
FROM canonical AS f
JOIN positions AS pf ON pf.code = f.code
JOIN canonical AS r ON r.first = f.first AND r.reply >= 0
JOIN positions AS pr ON pr.code = r.code
WHERE f.reply = -1
ORDER BY f.first, r.reply
