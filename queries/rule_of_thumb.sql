-- Where "centre, then corners, then edges" goes wrong (3x3): its first free cell loses value.
--
-- variants: 3x3
-- param max_ply = 8: only boards with at most this many marks
--
-- The rule plays the first free cell of 4, 0, 2, 6, 8, 1, 3, 5, 7, with no check for a win
-- or a block. One row per real board (every orientation counts) where that cell does not
-- keep the value; cells are real cells 0-8, row-major from the top-left. Needs the moves table.
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
-- Every image of every unfinished canonical row that perfect play does not lose.
images(board, code, q, ply, to_move, value, best) AS (
    SELECT substr(p.board, CAST(substr(s.q, 1, 1) AS INTEGER) + 1, 1) || substr(p.board, CAST(substr(s.q, 2, 1) AS INTEGER) + 1, 1) || substr(p.board, CAST(substr(s.q, 3, 1) AS INTEGER) + 1, 1)
            || substr(p.board, CAST(substr(s.q, 4, 1) AS INTEGER) + 1, 1) || substr(p.board, CAST(substr(s.q, 5, 1) AS INTEGER) + 1, 1) || substr(p.board, CAST(substr(s.q, 6, 1) AS INTEGER) + 1, 1)
            || substr(p.board, CAST(substr(s.q, 7, 1) AS INTEGER) + 1, 1) || substr(p.board, CAST(substr(s.q, 8, 1) AS INTEGER) + 1, 1) || substr(p.board, CAST(substr(s.q, 9, 1) AS INTEGER) + 1, 1),
           p.code, s.q, p.ply, p.to_move, p.value, p.best_moves
    FROM positions AS p, symmetries AS s
    WHERE p.wins + p.draws + p.losses > 0 AND p.value >= 0 AND p.ply <= :max_ply
),
-- Each real board once; real cell i is canonical cell q[i].
real(board, code, q, ply, to_move, value, best) AS (
    SELECT board, code, MIN(q), ply, to_move, value, best FROM images GROUP BY board, code, ply, to_move, value, best
),
choice(board, i) AS (
    SELECT r.board,
           (SELECT rule.i FROM rule WHERE substr(r.board, rule.i + 1, 1) = '.' ORDER BY rule.rank LIMIT 1)
    FROM real AS r
),
moved(board, cell, value, remoteness) AS (
    SELECT r.board, c.i, m.value, m.remoteness
    FROM real AS r
    JOIN choice AS c ON c.board = r.board
    JOIN moves AS m ON m.code = r.code AND m.cell = CAST(substr(r.q, c.i + 1, 1) AS INTEGER)
)
SELECT r.board,
       r.ply,
       r.to_move,
       CASE r.value WHEN 1 THEN 'win' ELSE 'draw' END AS outcome,
       m.cell AS rule_move,
       CASE m.value WHEN 0 THEN 'draw' ELSE 'loss' END AS rule_outcome,
       m.remoteness AS rule_remoteness,
       rtrim(CASE WHEN ',' || r.best || ',' LIKE '%,' || substr(r.q, 1, 1) || ',%' THEN '0,' ELSE '' END
              || CASE WHEN ',' || r.best || ',' LIKE '%,' || substr(r.q, 2, 1) || ',%' THEN '1,' ELSE '' END
              || CASE WHEN ',' || r.best || ',' LIKE '%,' || substr(r.q, 3, 1) || ',%' THEN '2,' ELSE '' END
              || CASE WHEN ',' || r.best || ',' LIKE '%,' || substr(r.q, 4, 1) || ',%' THEN '3,' ELSE '' END
              || CASE WHEN ',' || r.best || ',' LIKE '%,' || substr(r.q, 5, 1) || ',%' THEN '4,' ELSE '' END
              || CASE WHEN ',' || r.best || ',' LIKE '%,' || substr(r.q, 6, 1) || ',%' THEN '5,' ELSE '' END
              || CASE WHEN ',' || r.best || ',' LIKE '%,' || substr(r.q, 7, 1) || ',%' THEN '6,' ELSE '' END
              || CASE WHEN ',' || r.best || ',' LIKE '%,' || substr(r.q, 8, 1) || ',%' THEN '7,' ELSE '' END
              || CASE WHEN ',' || r.best || ',' LIKE '%,' || substr(r.q, 9, 1) || ',%' THEN '8,' ELSE '' END, ',') AS best_moves
FROM real AS r
JOIN moved AS m ON m.board = r.board
WHERE m.value <> r.value
ORDER BY r.ply, r.board
