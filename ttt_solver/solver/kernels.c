/* The solver's compiled loops: a C extension of CPython, built with the package where a C
 * compiler is at hand (setup.py; the numpy passes run where it is not).
 *
 * Each function is one loop over a chunk's boards, one board at a time in registers, where the
 * numpy passes of passes.py run each step as a whole-array operation. The Python side
 * (compiled.py) passes in the very tables the numpy passes read, as arrays, and the constants
 * of the value bytes; this file holds no table and no rule of the game of its own. Arrays come
 * in through the buffer protocol, each checked as it is taken (../buffers.h); the loops run
 * without the GIL, so that a Dask worker's threads run them side by side.
 */
#include "../buffers.h"

#include <stdint.h>

#define MAX_SYMMETRIES 16 /* a board has at most 8 symmetries (a square board's) */
#define MAX_CELLS 32      /* cells of a board, and of a half: at most 25 */
#define KINDS 4           /* a move's score by its value for the mover: win, draw, loss, no move */
#define SPREAD_BLOCK 2048 /* boards spread at a time: their images' ranks, 128 KB */

/* -- arrays (../buffers.h) --------------------------------------------------------------- */

#define I64(obj, least, length) ((int64_t *)array(held, obj, #obj, 8, 1, 0, least, length))
#define I64_OUT(obj, least) ((int64_t *)array(held, obj, #obj, 8, 1, 1, least, NULL))
#define I32(obj, least, length) ((int32_t *)array(held, obj, #obj, 4, 1, 0, least, length))
#define I8(obj, least, length) ((int8_t *)array(held, obj, #obj, 1, 1, 0, least, length))
#define I8_OUT(obj, least) ((int8_t *)array(held, obj, #obj, 1, 1, 1, least, NULL))
#define U8(obj, least, length) ((uint8_t *)array(held, obj, #obj, 1, 0, 0, least, length))
#define U8_OUT(obj, least) ((uint8_t *)array(held, obj, #obj, 1, 0, 1, least, NULL))
#define U32(obj, least, length) ((uint32_t *)array(held, obj, #obj, 4, 0, 0, least, length))
#define U32_OUT(obj, least) ((uint32_t *)array(held, obj, #obj, 4, 0, 1, least, NULL))

/* -- one board ---------------------------------------------------------------------------- */

/* The tables of a tier's rules and the valuing of its positions from the tier below. */
typedef struct {
    Py_ssize_t symmetries, high_halves, low_halves, high_cells, low_cells, lines;
    const int64_t *image_high, *image_low; /* (symmetries, halves of each): each half's share of each image's code */
    const int64_t *x_high, *x_low, *o_high, *o_low; /* (halves of each): the lines each half's X or O cells fill */
    const int64_t *line_cells;                      /* (lines): each line's cells as bits */
    int64_t base;                                   /* the codes of a half: a code is high * base + low */
    int misere;
    const int64_t *high_steps;   /* (high cells, high halves): a high half's move on each cell, high_halves if taken */
    const int32_t *low_moves;    /* (low halves, low cells): a low half's moves, rank << cell_bits | cell */
    const int64_t *low_empty;    /* (low halves): how many of them */
    const int64_t *offsets_below; /* (high halves + 1): the first rank of each high half in the tier below */
    const int64_t *rank_low;      /* (low halves): a low half's rank in its class */
    const uint8_t *below;         /* the tier below's result byte of each rank */
    const uint8_t *move_score;                 /* (256): a child's result byte -> the move's score */
    const int8_t *move_value, *top_remoteness; /* (256): a score -> the mover's value and remoteness */
    int cell_bits, illegal, playing, no_move, span_bits; /* a score's kind: score >> span_bits */
} Rules;

/* The board's orbit if it is its own canonical form (no image has a smaller code), else 0. */
static inline int64_t canonical_orbit(const Rules *r, const int64_t *shares, int64_t low) {
    int64_t code = shares[0] + r->image_low[low];
    int64_t fixed = 1; /* symmetries that map the board to itself */
    for (Py_ssize_t s = 1; s < r->symmetries; s++) {
        int64_t image = shares[s] + r->image_low[s * r->low_halves + low];
        if (image < code) return 0;
        fixed += image == code;
    }
    return r->symmetries / fixed;
}

/* The value of a finished game, playing while play goes on, illegal for lines no game makes. */
static inline int terminal(const Rules *r, uint64_t x_bits, uint64_t o_bits, int x_moved_last, int full) {
    if ((x_bits && o_bits) || (x_bits && !x_moved_last) || (o_bits && x_moved_last)) return r->illegal;
    uint64_t owner = x_bits | o_bits;
    if (owner == 0) return full ? 0 : r->playing;
    uint64_t shared = ~(uint64_t)0; /* the cells common to the owner's lines: one cell at least, the last move */
    for (Py_ssize_t number = 0; number < r->lines; number++)
        if ((owner >> number) & 1) shared &= (uint64_t)r->line_cells[number];
    if (shared == 0) return r->illegal; /* two separate lines: a move after the game ended */
    return r->misere ? 1 : -1;
}

/* What the children of a high half's boards share: for each empty cell of the high half,
 * children[i], the rank in the tier below of the first board whose high half is the child's,
 * and its cell; how many. In low_child: the same for a move in the low half. */
static inline Py_ssize_t high_children(const Rules *r, int64_t high, int64_t *children, int64_t *cells,
                                       int64_t *low_child) {
    Py_ssize_t empty = 0;
    for (Py_ssize_t cell = 0; cell < r->high_cells; cell++) {
        int64_t step = r->high_steps[cell * r->high_halves + high];
        if (step < r->high_halves) { /* not taken */
            children[empty] = r->offsets_below[step];
            cells[empty] = cell;
            empty++;
        }
    }
    *low_child = r->offsets_below[high];
    return empty;
}

/* A solved position's columns. */
typedef struct {
    int64_t *code;
    int8_t *value, *remoteness, *orbit;
    uint32_t *best, *preferred;
    uint8_t *wins, *draws, *losses;
} Columns;

/* One move's score counted: tally[kind] counts the moves of each kind of score and
 * tally[KINDS + kind] marks their cells; the best (lowest) score so far and the cells that reach it. */
static inline void count_move(const Rules *r, int score, int64_t cell, int *top, int64_t *preferred, int64_t *tally) {
    int kind = score >> r->span_bits;
    tally[kind] += 1;
    tally[KINDS + kind] |= (int64_t)1 << cell;
    if (score < *top) {
        *top = score;
        *preferred = (int64_t)1 << cell;
    } else if (score == *top) {
        *preferred |= (int64_t)1 << cell;
    }
}

/* Row i of ``out`` valued from its children's result bytes, in one pass over the moves on its
 * empty cells (the high half's from high_children, the low half's from low_moves). */
static inline void back_up(const Rules *r, int64_t low, Py_ssize_t high_empty, const int64_t *children,
                           const int64_t *cells, int64_t low_child, Columns *out, Py_ssize_t i) {
    int64_t tally[2 * KINDS] = {0};
    int64_t own_low = r->rank_low[low];
    int top = r->no_move;
    int64_t preferred = 0;
    for (Py_ssize_t j = 0; j < high_empty; j++)
        count_move(r, r->move_score[r->below[children[j] + own_low]], cells[j], &top, &preferred, tally);
    const int32_t *moves = r->low_moves + low * r->low_cells;
    for (int64_t j = 0; j < r->low_empty[low]; j++) {
        int64_t move = moves[j];
        int score = r->move_score[r->below[low_child + (move >> r->cell_bits)]];
        count_move(r, score, move & ((1 << r->cell_bits) - 1), &top, &preferred, tally);
    }
    out->value[i] = r->move_value[top];
    out->remoteness[i] = r->top_remoteness[top];
    if (top == r->no_move) { /* no child is a position (bytes no solve makes): every cell alike, as numpy's */
        uint32_t every = (uint32_t)(((int64_t)1 << (r->high_cells + r->low_cells)) - 1);
        out->best[i] = out->preferred[i] = every;
        out->wins[i] = out->draws[i] = out->losses[i] = 0;
        return;
    }
    out->best[i] = (uint32_t)tally[KINDS + (top >> r->span_bits)]; /* the moves of the best move's value */
    out->preferred[i] = (uint32_t)preferred;
    out->wins[i] = (uint8_t)tally[0];
    out->draws[i] = (uint8_t)tally[1];
    out->losses[i] = (uint8_t)tally[2];
}

static inline void zero_rest(Columns *out, Py_ssize_t i) {
    out->remoteness[i] = 0;
    out->best[i] = out->preferred[i] = 0;
    out->wins[i] = out->draws[i] = out->losses[i] = 0;
}

/* -- the arguments shared by the solving loops --------------------------------------------- */

/* The rules tuple (image_high, image_low, x_high, x_low, o_high, o_low, line_cells, base,
 * misere), the moves tuple (high_steps, low_moves, low_empty, offsets_below, rank_low, below,
 * move_score, move_value, top_remoteness) and the constants tuple (cell_bits, illegal, playing,
 * no_move, span_bits), with the shape (symmetries, high halves, low halves, high cells, low cells). */
static int parse_rules(Held *held, PyObject *rules, PyObject *moves, PyObject *constants, PyObject *shape, Rules *r) {
    PyObject *image_high, *image_low, *x_high, *x_low, *o_high, *o_low, *line_cells, *base, *misere;
    PyObject *high_steps, *low_moves, *low_empty, *offsets_below, *rank_low, *below, *move_score, *move_value,
        *top_remoteness;
    int ok = 0;
    if (!PyArg_ParseTuple(shape, "nnnnn", &r->symmetries, &r->high_halves, &r->low_halves, &r->high_cells,
                          &r->low_cells))
        goto done;
    if (r->symmetries < 1 || r->symmetries > MAX_SYMMETRIES || r->high_cells > MAX_CELLS || r->low_cells > MAX_CELLS ||
        r->high_cells + r->low_cells > MAX_CELLS - 1) {
        PyErr_SetString(PyExc_ValueError, "shape out of range");
        goto done;
    }
    if (!PyArg_ParseTuple(rules, "OOOOOOOOO", &image_high, &image_low, &x_high, &x_low, &o_high, &o_low, &line_cells,
                          &base, &misere))
        goto done;
    if (!PyArg_ParseTuple(moves, "OOOOOOOOO", &high_steps, &low_moves, &low_empty, &offsets_below, &rank_low, &below,
                          &move_score, &move_value, &top_remoteness))
        goto done;
    if (!PyArg_ParseTuple(constants, "iiiii", &r->cell_bits, &r->illegal, &r->playing, &r->no_move, &r->span_bits))
        goto done;
    if (r->cell_bits < 1 || r->cell_bits > 8 || r->span_bits < 1 || r->span_bits > 7) {
        PyErr_SetString(PyExc_ValueError, "constants out of range");
        goto done;
    }
    Py_ssize_t highs = r->high_halves, lows = r->low_halves;
    if (!(r->image_high = I64(image_high, r->symmetries * highs, NULL)) ||
        !(r->image_low = I64(image_low, r->symmetries * lows, NULL)) || !(r->x_high = I64(x_high, highs, NULL)) ||
        !(r->x_low = I64(x_low, lows, NULL)) || !(r->o_high = I64(o_high, highs, NULL)) ||
        !(r->o_low = I64(o_low, lows, NULL)) ||
        !(r->line_cells = I64(line_cells, 0, &r->lines)))
        goto done;
    if (r->lines > 63) {
        PyErr_SetString(PyExc_ValueError, "more than 63 lines");
        goto done;
    }
    r->base = PyLong_AsLongLong(base);
    r->misere = PyObject_IsTrue(misere);
    if (PyErr_Occurred() || r->misere < 0) goto done;
    if (!(r->high_steps = I64(high_steps, r->high_cells * highs, NULL)) ||
        !(r->low_moves = I32(low_moves, lows * r->low_cells, NULL)) || !(r->low_empty = I64(low_empty, lows, NULL)) ||
        !(r->offsets_below = I64(offsets_below, highs + 1, NULL)) || !(r->rank_low = I64(rank_low, lows, NULL)) ||
        !(r->below = U8(below, 1, NULL)) ||
        !(r->move_score = U8(move_score, 256, NULL)) || !(r->move_value = I8(move_value, 256, NULL)) ||
        !(r->top_remoteness = I8(top_remoteness, 256, NULL)))
        goto done;
    ok = 1;
done:
    return ok;
}

/* The out tuple (code, value, remoteness, best, preferred, orbit, wins, draws, losses), each of
 * at least ``rows`` elements. */
static int parse_columns(Held *held, PyObject *columns, Py_ssize_t rows, Columns *out) {
    PyObject *code, *value, *remoteness, *best, *preferred, *orbit, *wins, *draws, *losses;
    int ok = PyArg_ParseTuple(columns, "OOOOOOOOO", &code, &value, &remoteness, &best, &preferred, &orbit, &wins,
                              &draws, &losses) &&
             (out->code = I64_OUT(code, rows)) && (out->value = I8_OUT(value, rows)) &&
             (out->remoteness = I8_OUT(remoteness, rows)) && (out->best = U32_OUT(best, rows)) &&
             (out->preferred = U32_OUT(preferred, rows)) && (out->orbit = I8_OUT(orbit, rows)) &&
             (out->wins = U8_OUT(wins, rows)) && (out->draws = U8_OUT(draws, rows)) &&
             (out->losses = U8_OUT(losses, rows));
    return ok;
}

/* -- loops over a chunk ------------------------------------------------------------------- */

PyDoc_STRVAR(solve_ranks_doc,
             "solve_ranks(ply, start, stop, boards, rules, moves, constants, shape, out) -> count\n\n"
             "The canonical legal boards among ranks start to stop of tier ply, solved into the first rows\n"
             "of out; how many. boards: (offsets, partner, class_start, lows, first high half).");

static PyObject *solve_ranks(PyObject *self, PyObject *args) {
    Py_ssize_t ply, start, stop, first;
    PyObject *boards, *rules, *moves, *constants, *shape, *columns;
    PyObject *offsets_obj, *partner_obj, *class_start_obj, *lows_obj;
    Held store = {.count = 0}, *held = &store;
    Rules r;
    Columns out;
    if (!PyArg_ParseTuple(args, "nnnO!O!O!O!O!O!", &ply, &start, &stop, &PyTuple_Type, &boards, &PyTuple_Type, &rules,
                          &PyTuple_Type, &moves, &PyTuple_Type, &constants, &PyTuple_Type, &shape, &PyTuple_Type,
                          &columns))
        return NULL;
    if (!PyArg_ParseTuple(boards, "OOOOn", &offsets_obj, &partner_obj, &class_start_obj, &lows_obj, &first)) return NULL;
    if (!parse_rules(held, rules, moves, constants, shape, &r) || !parse_columns(held, columns, stop - start, &out))
        goto fail;
    const int64_t *offsets = I64(offsets_obj, r.high_halves + 1, NULL);
    const int64_t *partner = offsets ? I64(partner_obj, r.high_halves, NULL) : NULL;
    const int64_t *class_start = partner ? I64(class_start_obj, 1, NULL) : NULL;
    const int64_t *lows = class_start ? I64(lows_obj, 0, NULL) : NULL;
    if (lows == NULL) goto fail;
    if (first < 0 || first >= r.high_halves || start < 0 || stop < start || stop > offsets[r.high_halves]) {
        PyErr_SetString(PyExc_ValueError, "ranks out of range");
        goto fail;
    }
    int x_moved_last = ply % 2 == 1, full = ply == r.high_cells + r.low_cells;
    Py_ssize_t count = 0;
    Py_BEGIN_ALLOW_THREADS;
    int64_t shares[MAX_SYMMETRIES], children[MAX_CELLS], cells[MAX_CELLS], low_child;
    for (int64_t high = first; high < r.high_halves && offsets[high] < stop; high++) {
        int64_t begin = offsets[high] > start ? offsets[high] : start;
        int64_t end = offsets[high + 1] < stop ? offsets[high + 1] : stop;
        if (begin >= end) continue;
        int64_t run = class_start[partner[high] > 0 ? partner[high] : 0] - offsets[high];
        for (Py_ssize_t s = 0; s < r.symmetries; s++) shares[s] = r.image_high[s * r.high_halves + high];
        Py_ssize_t high_empty = high_children(&r, high, children, cells, &low_child);
        uint64_t x_own = (uint64_t)r.x_high[high], o_own = (uint64_t)r.o_high[high];
        int64_t high_code = high * r.base;
        for (int64_t rank = begin; rank < end; rank++) {
            int64_t low = lows[run + rank];
            int64_t symmetric = canonical_orbit(&r, shares, low);
            if (symmetric == 0) continue;
            int value = terminal(&r, x_own & (uint64_t)r.x_low[low], o_own & (uint64_t)r.o_low[low], x_moved_last, full);
            if (value == r.illegal) continue;
            out.code[count] = high_code + low;
            out.orbit[count] = (int8_t)symmetric;
            out.value[count] = (int8_t)value;
            zero_rest(&out, count);
            if (value == r.playing) back_up(&r, low, high_empty, children, cells, low_child, &out, count);
            count++;
        }
    }
    Py_END_ALLOW_THREADS;
    release(held);
    return PyLong_FromSsize_t(count);
fail:
    release(held);
    return NULL;
}

PyDoc_STRVAR(solve_found_doc,
             "solve_found(high, low, terminal, rules, moves, constants, shape, out)\n\n"
             "Canonical legal positions found already (their halves, in code order, and terminal values)\n"
             "valued into out (all but its code and orbit).");

static PyObject *solve_found(PyObject *self, PyObject *args) {
    PyObject *high_obj, *low_obj, *terminal_obj, *rules, *moves, *constants, *shape, *columns;
    Held store = {.count = 0}, *held = &store;
    Rules r;
    Columns out;
    Py_ssize_t rows, lows, terminal_count;
    if (!PyArg_ParseTuple(args, "OOOO!O!O!O!O!", &high_obj, &low_obj, &terminal_obj, &PyTuple_Type, &rules,
                          &PyTuple_Type, &moves, &PyTuple_Type, &constants, &PyTuple_Type, &shape, &PyTuple_Type,
                          &columns))
        return NULL;
    const int64_t *high = I64(high_obj, 0, &rows);
    const int64_t *low = high ? I64(low_obj, 0, &lows) : NULL;
    const int8_t *terminals = low ? I8(terminal_obj, 0, &terminal_count) : NULL;
    if (terminals == NULL || !parse_rules(held, rules, moves, constants, shape, &r) ||
        !parse_columns(held, columns, rows, &out))
        goto fail;
    if (lows != rows || terminal_count != rows) {
        PyErr_SetString(PyExc_ValueError, "high, low and terminal differ in length");
        goto fail;
    }
    Py_BEGIN_ALLOW_THREADS;
    int64_t children[MAX_CELLS], cells[MAX_CELLS], low_child = 0, children_of = -1;
    Py_ssize_t high_empty = 0;
    for (Py_ssize_t i = 0; i < rows; i++) {
        out.value[i] = terminals[i];
        zero_rest(&out, i);
        if (terminals[i] == r.playing) {
            if (high[i] != children_of) {
                high_empty = high_children(&r, high[i], children, cells, &low_child);
                children_of = high[i];
            }
            back_up(&r, low[i], high_empty, children, cells, low_child, &out, i);
        }
    }
    Py_END_ALLOW_THREADS;
    release(held);
    Py_RETURN_NONE;
fail:
    release(held);
    return NULL;
}

/* -- images ------------------------------------------------------------------------------- */

/* The tables that give an image's rank: each half's int32 share of each image's halves
 * (symmetries, halves of each), the tier's offsets and the low halves' ranks. */
typedef struct {
    Py_ssize_t symmetries, high_halves, low_halves;
    int64_t base;
    const int32_t *high_high, *high_low, *low_high, *low_low;
    const int64_t *offsets, *rank_low;
} Images;

static int parse_images(Held *held, PyObject *halves, PyObject *offsets, PyObject *rank_low, Images *g) {
    PyObject *high_high, *high_low, *low_high, *low_low;
    int ok = 0;
    long long base;
    if (!PyArg_ParseTuple(halves, "nnnLOOOO", &g->symmetries, &g->high_halves, &g->low_halves, &base, &high_high,
                          &high_low, &low_high, &low_low))
        goto done;
    g->base = base;
    if (g->symmetries < 1 || g->symmetries > MAX_SYMMETRIES || g->base < 1) {
        PyErr_SetString(PyExc_ValueError, "shape out of range");
        goto done;
    }
    Py_ssize_t highs = g->symmetries * g->high_halves, lows = g->symmetries * g->low_halves;
    ok = (g->high_high = I32(high_high, highs, NULL)) && (g->high_low = I32(high_low, highs, NULL)) &&
         (g->low_high = I32(low_high, lows, NULL)) && (g->low_low = I32(low_low, lows, NULL)) &&
         (g->offsets = I64(offsets, g->high_halves + 1, NULL)) && (g->rank_low = I64(rank_low, g->low_halves, NULL));
done:
    return ok;
}

/* The halves of ``code``, the high one tried first as the last board's (boards come in code
 * order, a run of them to a high half): a division only where the run ends. */
static inline int64_t halves_of(int64_t code, int64_t *high, int64_t base) {
    int64_t low = code - *high * base;
    if (low < 0 || low >= base) {
        *high = code / base;
        low = code - *high * base;
    }
    return low;
}

/* An image's rank in its tier from the shares of the image's halves that the board's halves
 * give: the offset of the image's high half, plus the rank of its low half under it. */
static inline int64_t image_rank(const Images *g, int64_t high_from_high, int64_t low_from_high, int64_t high_from_low,
                                 int64_t low_from_low) {
    return g->offsets[high_from_high + high_from_low] + g->rank_low[low_from_high + low_from_low];
}

PyDoc_STRVAR(image_ranks_doc, "image_ranks(code, symmetry, halves, offsets, rank_low, out)\n\n"
                              "out[i]: the rank in its tier of board i's image under the symmetry.");

static PyObject *image_ranks(PyObject *self, PyObject *args) {
    PyObject *code_obj, *halves, *offsets, *rank_low, *out_obj;
    Py_ssize_t s, rows;
    Held store = {.count = 0}, *held = &store;
    Images g;
    if (!PyArg_ParseTuple(args, "OnO!OOO", &code_obj, &s, &PyTuple_Type, &halves, &offsets, &rank_low, &out_obj))
        return NULL;
    const int64_t *code = I64(code_obj, 0, &rows);
    int64_t *out = code ? I64_OUT(out_obj, rows) : NULL;
    if (out == NULL || !parse_images(held, halves, offsets, rank_low, &g)) goto fail;
    if (s < 0 || s >= g.symmetries) {
        PyErr_SetString(PyExc_ValueError, "no such symmetry");
        goto fail;
    }
    Py_BEGIN_ALLOW_THREADS;
    int64_t high = 0;
    const int32_t *hh = g.high_high + s * g.high_halves, *hl = g.high_low + s * g.high_halves;
    const int32_t *lh = g.low_high + s * g.low_halves, *ll = g.low_low + s * g.low_halves;
    for (Py_ssize_t i = 0; i < rows; i++) {
        int64_t low = halves_of(code[i], &high, g.base);
        out[i] = image_rank(&g, hh[high], hl[high], lh[low], ll[low]);
    }
    Py_END_ALLOW_THREADS;
    release(held);
    Py_RETURN_NONE;
fail:
    release(held);
    return NULL;
}

PyDoc_STRVAR(spread_doc,
             "spread(code, result, halves, offsets, rank_low, out)\n\n"
             "out[rank of each image of board i] = result[i]: a block of boards' images ranked, then written\n"
             "a symmetry at a time (one symmetry's images of boards in code order land near each other).");

static PyObject *spread(PyObject *self, PyObject *args) {
    PyObject *code_obj, *result_obj, *halves, *offsets, *rank_low, *out_obj;
    Py_ssize_t rows, size;
    Held store = {.count = 0}, *held = &store;
    Images g;
    if (!PyArg_ParseTuple(args, "OOO!OOO", &code_obj, &result_obj, &PyTuple_Type, &halves, &offsets, &rank_low,
                          &out_obj))
        return NULL;
    const int64_t *code = I64(code_obj, 0, &rows);
    const uint8_t *result = code ? U8(result_obj, rows, NULL) : NULL;
    uint8_t *out = result ? (uint8_t *)array(held, out_obj, "out", 1, 0, 1, 0, &size) : NULL;
    if (out == NULL || !parse_images(held, halves, offsets, rank_low, &g)) goto fail;
    int64_t *ranks = PyMem_RawMalloc(sizeof(int64_t) * MAX_SYMMETRIES * SPREAD_BLOCK);
    if (ranks == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    int64_t bad = 0;
    Py_BEGIN_ALLOW_THREADS;
    int64_t high = 0, shared = -1, high_shares[MAX_SYMMETRIES], low_shares[MAX_SYMMETRIES];
    for (Py_ssize_t first = 0; first < rows; first += SPREAD_BLOCK) {
        Py_ssize_t count = rows - first < SPREAD_BLOCK ? rows - first : SPREAD_BLOCK;
        for (Py_ssize_t i = 0; i < count; i++) {
            int64_t low = halves_of(code[first + i], &high, g.base);
            if (high != shared) { /* the high half's shares, looked up once a run of boards */
                for (Py_ssize_t s = 0; s < g.symmetries; s++) {
                    high_shares[s] = g.high_high[s * g.high_halves + high];
                    low_shares[s] = g.high_low[s * g.high_halves + high];
                }
                shared = high;
            }
            for (Py_ssize_t s = 0; s < g.symmetries; s++)
                ranks[s * SPREAD_BLOCK + i] = image_rank(&g, high_shares[s], low_shares[s],
                                                         g.low_high[s * g.low_halves + low],
                                                         g.low_low[s * g.low_halves + low]);
        }
        for (Py_ssize_t s = 0; s < g.symmetries; s++) {
            const int64_t *block = ranks + s * SPREAD_BLOCK;
            for (Py_ssize_t i = 0; i < count; i++) {
                bad |= (uint64_t)block[i] >= (uint64_t)size;
                if ((uint64_t)block[i] < (uint64_t)size) out[block[i]] = result[first + i];
            }
        }
    }
    Py_END_ALLOW_THREADS;
    PyMem_RawFree(ranks);
    if (bad) {
        PyErr_SetString(PyExc_IndexError, "an image's rank is beyond out");
        goto fail;
    }
    release(held);
    Py_RETURN_NONE;
fail:
    release(held);
    return NULL;
}

PyDoc_STRVAR(scatter_doc, "scatter(out, ranks, results)\n\nout[ranks[i]] = results[i] (ranks: uint32).");

static PyObject *scatter(PyObject *self, PyObject *args) {
    PyObject *out_obj, *ranks_obj, *results_obj;
    Py_ssize_t size, rows;
    Held store = {.count = 0}, *held = &store;
    if (!PyArg_ParseTuple(args, "OOO", &out_obj, &ranks_obj, &results_obj)) return NULL;
    uint8_t *out = (uint8_t *)array(held, out_obj, "out", 1, 0, 1, 0, &size);
    const uint32_t *ranks = out ? U32(ranks_obj, 0, &rows) : NULL;
    const uint8_t *results = ranks ? U8(results_obj, rows, NULL) : NULL;
    if (results == NULL) goto fail;
    uint32_t largest = 0;
    Py_BEGIN_ALLOW_THREADS;
    for (Py_ssize_t i = 0; i < rows; i++) largest = ranks[i] > largest ? ranks[i] : largest;
    if ((Py_ssize_t)largest < size)
        for (Py_ssize_t i = 0; i < rows; i++) out[ranks[i]] = results[i];
    Py_END_ALLOW_THREADS;
    if (rows > 0 && (Py_ssize_t)largest >= size) {
        PyErr_SetString(PyExc_IndexError, "a rank is beyond out");
        goto fail;
    }
    release(held);
    Py_RETURN_NONE;
fail:
    release(held);
    return NULL;
}

PyDoc_STRVAR(pack_rows_doc,
             "pack_rows(code, best, best_shift, fields, shifts, added, out)\n\n"
             "out[i]: board i's code, and its numbers in one integer: best[i] shifted best_shift up and each\n"
             "fields[f][i] (int8) + added[f] shifted shifts[f] up. out: (rows, 2) int64.");

static PyObject *pack_rows(PyObject *self, PyObject *args) {
    PyObject *code_obj, *best_obj, *fields, *shifts_obj, *added_obj, *out_obj;
    int best_shift;
    Py_ssize_t rows, count, shift_count;
    Held store = {.count = 0}, *held = &store;
    const int8_t *columns[MAX_CELLS];
    if (!PyArg_ParseTuple(args, "OOiO!OOO", &code_obj, &best_obj, &best_shift, &PyTuple_Type, &fields, &shifts_obj,
                          &added_obj, &out_obj))
        return NULL;
    count = PyTuple_GET_SIZE(fields);
    const int64_t *code = count <= MAX_CELLS ? I64(code_obj, 0, &rows) : NULL;
    const uint32_t *best = code ? U32(best_obj, rows, NULL) : NULL;
    const int64_t *shifts = best ? I64(shifts_obj, count, &shift_count) : NULL;
    const int64_t *added = shifts ? I64(added_obj, count, NULL) : NULL;
    int64_t *out = added ? I64_OUT(out_obj, 2 * rows) : NULL;
    if (out == NULL) {
        if (count > MAX_CELLS) PyErr_SetString(PyExc_ValueError, "too many fields");
        goto fail;
    }
    for (Py_ssize_t f = 0; f < count; f++)
        if (!(columns[f] = (const int8_t *)array(held, PyTuple_GET_ITEM(fields, f), "field", 1, 1, 0, rows, NULL)))
            goto fail;
    Py_BEGIN_ALLOW_THREADS;
    for (Py_ssize_t i = 0; i < rows; i++) {
        int64_t data = (int64_t)best[i] << best_shift;
        for (Py_ssize_t f = 0; f < count; f++) data |= ((int64_t)columns[f][i] + added[f]) << shifts[f];
        out[2 * i] = code[i];
        out[2 * i + 1] = data;
    }
    Py_END_ALLOW_THREADS;
    release(held);
    Py_RETURN_NONE;
fail:
    release(held);
    return NULL;
}

static PyMethodDef methods[] = {
    {"solve_ranks", solve_ranks, METH_VARARGS, solve_ranks_doc},
    {"solve_found", solve_found, METH_VARARGS, solve_found_doc},
    {"image_ranks", image_ranks, METH_VARARGS, image_ranks_doc},
    {"spread", spread, METH_VARARGS, spread_doc},
    {"scatter", scatter, METH_VARARGS, scatter_doc},
    {"pack_rows", pack_rows, METH_VARARGS, pack_rows_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "ttt_solver.solver.kernels",
    .m_doc = "The solver's compiled loops (see compiled.py, which calls them).",
    .m_size = 0,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit_kernels(void) { return PyModule_Create(&module); }
