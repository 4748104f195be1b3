/* A memoised negamax over m x n k-in-a-row (normal or misère) that knows nothing of symmetry:
 * the yardstick of benchmarks/bench_negamax.py, compiled by it with gcc -O2.
 *
 *     negamax ROWS COLS K MISERE [BOARD]
 *
 * prints "VALUE REMOTENESS VISITED" for BOARD (X, O and '.', row-major; default: the empty
 * board), with the project's conventions (ttt_solver/game/values.py): values +1 win, 0 draw,
 * -1 loss for the side to move; remoteness in plies, the winner winning as fast as possible,
 * the loser losing as slowly as possible, a draw running until the board is full. A board where
 * a player holds k in a row is over (the side to move lost it, or, misère, won it); so is a full
 * board (a draw). VISITED counts the positions solved (each once).
 *
 * The memo is one byte a code: a table of 3^cells bytes indexed by the board's base-3 code
 * (ttt_solver/game/codec.py's: O 0, empty 1, X 2, cell 0 the most significant digit), holding
 * (value + 1) * 32 + remoteness + 1, 0 for a position not solved yet. A finished child is
 * recognised from the move (the lines through its cell) and never stored. The table is calloc'ed:
 * the pages of codes no position reaches are never touched.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CELLS 25
#define MAX_THROUGH (4 * MAX_CELLS) /* at most k lines through a cell in each of 4 directions */
enum { O_DIGIT = 0, EMPTY_DIGIT = 1, X_DIGIT = 2 };

static int cells, k, misere;
static uint64_t weight[MAX_CELLS];
static int through_count[MAX_CELLS];
static signed char through[MAX_CELLS][MAX_THROUGH][MAX_CELLS]; /* each line's other k - 1 cells */
static unsigned char board[MAX_CELLS];
static uint8_t *memo;
static uint64_t visited;

static void make_lines(int rows, int cols) {
    static const int steps[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
    for (int d = 0; d < 4; d++)
        for (int r = 0; r < rows; r++)
            for (int c = 0; c < cols; c++) {
                int end_r = r + steps[d][0] * (k - 1), end_c = c + steps[d][1] * (k - 1);
                if (end_r < 0 || end_r >= rows || end_c < 0 || end_c >= cols) continue;
                for (int i = 0; i < k; i++) {
                    int cell = (r + steps[d][0] * i) * cols + c + steps[d][1] * i;
                    signed char *others = through[cell][through_count[cell]++];
                    for (int j = 0, n = 0; j < k; j++)
                        if (j != i) others[n++] = (signed char)((r + steps[d][0] * j) * cols + c + steps[d][1] * j);
                }
            }
}

/* Whether the side with this digit completes a line by playing the (empty) cell. */
static int completes(int cell, int digit) {
    for (int i = 0; i < through_count[cell]; i++) {
        const signed char *others = through[cell][i];
        int j = 0;
        while (j < k - 1 && board[(int)others[j]] == digit) j++;
        if (j == k - 1) return 1;
    }
    return 0;
}

/* The result byte ((value + 1) * 32 + remoteness) of the position on `board`, whose code is
 * `code`, with `empties` empty cells (at least one) and no line, `digit` to move. */
static int solve(uint64_t code, int empties, int digit) {
    uint8_t known = memo[code];
    if (known) return known - 1;
    visited++;
    int best_value = -2, best_remoteness = 0;
    for (int cell = 0; cell < cells; cell++) {
        if (board[cell] != EMPTY_DIGIT) continue;
        int value, remoteness; /* of the move, for the mover */
        if (completes(cell, digit)) {
            value = misere ? -1 : 1, remoteness = 1;
        } else if (empties == 1) {
            value = 0, remoteness = 1;
        } else {
            board[cell] = (unsigned char)digit;
            int child = solve(code + (uint64_t)(digit - EMPTY_DIGIT) * weight[cell], empties - 1, 2 - digit);
            board[cell] = EMPTY_DIGIT;
            value = 1 - (child >> 5), remoteness = (child & 31) + 1;
        }
        if (value > best_value ||
            (value == best_value && (value > 0 ? remoteness < best_remoteness : remoteness > best_remoteness))) {
            best_value = value, best_remoteness = remoteness;
        }
    }
    int result = (best_value + 1) * 32 + best_remoteness;
    memo[code] = (uint8_t)(result + 1);
    return result;
}

/* Whether a player holds a whole line of `board`. */
static int has_line(void) {
    for (int cell = 0; cell < cells; cell++) {
        if (board[cell] == EMPTY_DIGIT) continue;
        for (int i = 0; i < through_count[cell]; i++) {
            const signed char *others = through[cell][i];
            int j = 0;
            while (j < k - 1 && board[(int)others[j]] == board[cell]) j++;
            if (j == k - 1) return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 5 && argc != 6) {
        fprintf(stderr, "usage: %s ROWS COLS K MISERE [BOARD]\n", argv[0]);
        return 2;
    }
    int rows = atoi(argv[1]), cols = atoi(argv[2]);
    k = atoi(argv[3]), misere = atoi(argv[4]), cells = rows * cols;
    if (rows < 1 || cols < 1 || cells > MAX_CELLS || k < 2 || k > (rows > cols ? rows : cols)) {
        fprintf(stderr, "negamax: no such variant\n");
        return 2;
    }
    const char *text = argc == 6 ? argv[5] : "";
    if (argc == 6 && (int)strlen(text) != cells) {
        fprintf(stderr, "negamax: the board must have %d cells\n", cells);
        return 2;
    }
    make_lines(rows, cols);
    uint64_t code = 0, size = 1;
    int xs = 0, os = 0;
    for (int cell = cells - 1; cell >= 0; cell--, size *= 3) weight[cell] = size;
    for (int cell = 0; cell < cells; cell++) {
        char mark = argc == 6 ? text[cell] : '.';
        board[cell] = mark == 'X' ? X_DIGIT : mark == 'O' ? O_DIGIT : EMPTY_DIGIT;
        xs += mark == 'X', os += mark == 'O';
        code += board[cell] * weight[cell];
    }
    int value, remoteness;
    if (has_line()) {
        value = misere ? 1 : -1, remoteness = 0;
    } else if (xs + os == cells) {
        value = 0, remoteness = 0;
    } else {
        memo = calloc(size, 1);
        if (memo == NULL) {
            fprintf(stderr, "negamax: cannot allocate %llu bytes\n", (unsigned long long)size);
            return 1;
        }
        int result = solve(code, cells - xs - os, xs > os ? O_DIGIT : X_DIGIT);
        value = (result >> 5) - 1, remoteness = result & 31;
    }
    printf("%d %d %llu\n", value, remoteness, (unsigned long long)visited);
    return 0;
}
