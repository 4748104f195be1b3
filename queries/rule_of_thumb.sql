-- Where "centre, then corners, then edges" goes wrong (3x3): its first free cell loses value.
--
-- param max_ply = 8: only boards with at most this many marks
--
-- The rule plays the first free cell of 4, 0, 2, 6, 8, 1, 3, 5, 7, with no check for a win
-- or a block. One row per real board (every orientation counts) where that cell does not
-- keep the value; cells are real cells 0-8, row-major from the top-left.
-- columns:
--   board            the real board, text form (X, O, . row-major)
--   ply              marks on the board
--   to_move          X or O
--   outcome          win or draw: what perfect play gets (a lost board cannot be spoiled)
--   rule_move        the cell the rule plays
--   rule_outcome     draw or loss: what the rule's move gets
--   rule_remoteness  plies to the end after the rule's move
--   best_moves       the cells that keep the value, comma-separated
WITH RECURSIVE
cells(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM cells WHERE i < 8),
rule(rank, i) AS (VALUES (0, 4), (1, 0), (2, 2), (3, 6), (4, 8), (5, 1), (6, 3), (7, 5), (8, 7)),
symmetries(q) AS (
    VALUES ('012345678'), ('210543876'), ('678345012'), ('876543210'),
           ('036147258'), ('630741852'), ('258147036'), ('852741630')
),
-- Every real board of every unfinished canonical row: real cell i is canonical cell q[i].
real(board, canon, q, ply, to_move, value) AS (
    SELECT substr(p.board, substr(q, 1, 1) + 1, 1) || substr(p.board, substr(q, 2, 1) + 1, 1)
            || substr(p.board, substr(q, 3, 1) + 1, 1) || substr(p.board, substr(q, 4, 1) + 1, 1)
            || substr(p.board, substr(q, 5, 1) + 1, 1) || substr(p.board, substr(q, 6, 1) + 1, 1)
            || substr(p.board, substr(q, 7, 1) + 1, 1) || substr(p.board, substr(q, 8, 1) + 1, 1)
            || substr(p.board, substr(q, 9, 1) + 1, 1),
           p.board, MIN(q), p.ply, p.to_move, p.value
    FROM positions AS p, symmetries
    WHERE p.best_moves <> '' AND p.value >= 0 AND p.ply <= :max_ply AND length(p.board) = 9
    GROUP BY 1
),
choice(board, i) AS (
    SELECT r.board,
           (SELECT rule.i FROM rule WHERE substr(r.board, rule.i + 1, 1) = '.' ORDER BY rule.rank LIMIT 1)
    FROM real AS r
)
SELECT r.board,
       r.ply,
       r.to_move,
       CASE r.value WHEN 1 THEN 'win' ELSE 'draw' END AS outcome,
       c.i AS rule_move,
       CASE m.value WHEN 0 THEN 'draw' ELSE 'loss' END AS rule_outcome,
       m.remoteness AS rule_remoteness,
       (SELECT group_concat(i, ',') FROM (
            SELECT cells.i FROM cells
            JOIN moves AS k ON k.board = r.canon AND k.cell = substr(r.q, cells.i + 1, 1) + 0
            WHERE k.value = r.value ORDER BY cells.i)) AS best_moves
FROM real AS r
JOIN choice AS c ON c.board = r.board
JOIN moves AS m ON m.board = r.canon AND m.cell = substr(r.q, c.i + 1, 1) + 0
WHERE m.value <> r.value
ORDER BY r.ply, r.board
