/* The batch lookups' compiled loops: a C extension of CPython, built with the package where a C
 * compiler is at hand (setup.py; numpy's whole-array path in tables.py answers where it is not).
 *
 * Each function is a loop over a batch's boards, a block of them at a time, where numpy's path
 * makes every step a whole-array operation with temporaries as large as the chunk. The Python
 * side (batch_kernels.py) passes in the very tables numpy's path reads; this file holds no table
 * of its own. Arrays come in through the buffer protocol (no numpy headers: the extension does
 * not depend on numpy's version), C-contiguous native integers, each checked for its element
 * size and sign; the loops run without the GIL, so that the batch's threads run them side by
 * side. A loop that meets a board at fault returns False, some rows not filled: numpy's path then
 * answers the same boards and raises the error it names.
 */
#include "../buffers.h"

#include <stdint.h>

#define BLOCK 512             /* boards whose codes are made, then whose entries are read, at a time */
#define BOARDS_A_BLOCK 16384  /* the same for 16 cells: 208 KB of the steps' results, in the L2 cache */
#define HALF_CODES 6561       /* 3**8: the codes of a 16-cell board's half */
#define MAX_CELLS 20          /* cells of a board with a code: 3**20 < 2**32 */

/* Kept out of line: each step of values_by_rank a loop of its own, so that the words' loops are
 * vector loops and the reads of the table have nothing else in their way (the same steps in one
 * loop ran three to four times slower). */
#if defined(__GNUC__)
#define SEPARATE __attribute__((noinline))
#else
#define SEPARATE
#endif

/* The vector loops built three times, for AVX-512, AVX2 and the SSE2 every x86-64 has, the
 * widest the processor runs chosen as the module loads (gcc's function versions): on AVX-512,
 * 4x4's values take 3.3 ns a board where SSE2's loops took 5.7 (numba, compiled for the
 * processor it runs on, 3.3). */
#if defined(__x86_64__) && defined(__GLIBC__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#define WIDE __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define WIDE
#endif

/* -- arrays (../buffers.h) --------------------------------------------------------------- */

#define I64(obj, least, length) ((const int64_t *)array(held, obj, #obj, 8, 1, 0, least, length))
#define U64(obj, least, length) ((const uint64_t *)array(held, obj, #obj, 8, 0, 0, least, length))
#define I32(obj, least, length) ((const int32_t *)array(held, obj, #obj, 4, 1, 0, least, length))
#define U16(obj, least, length) ((const uint16_t *)array(held, obj, #obj, 2, 0, 0, least, length))
#define U8(obj, least, length) ((const uint8_t *)array(held, obj, #obj, 1, 0, 0, least, length))
#define BYTES(obj, least, length) ((const uint8_t *)array(held, obj, #obj, 1, -1, 0, least, length))
#define BYTES_OUT(obj, least, length) ((uint8_t *)array(held, obj, #obj, 1, -1, 1, least, length))
#define I8_OUT(obj, least, length) ((int8_t *)array(held, obj, #obj, 1, 1, 1, least, length))

/* -- boards of any integer type ----------------------------------------------------------- */

/* narrow reads the boards' cells as they come, one version of its loop per integer type; the
 * other loops read int8 boards (batch_kernels.py narrows others first). A cell is at fault
 * unless +1, -1 or 0. */
#define EACH_TYPE(X)                                                                                   \
    X(i8, int8_t, SIGNED) X(u8, uint8_t, UNSIGNED) X(i16, int16_t, SIGNED) X(u16, uint16_t, UNSIGNED)  \
    X(i32, int32_t, SIGNED) X(u32, uint32_t, UNSIGNED) X(i64, int64_t, SIGNED) X(u64, uint64_t, UNSIGNED)
#define FAULT_SIGNED(value) (((value) < -1) | ((value) > 1))
#define FAULT_UNSIGNED(value) ((value) > 1)

/* out[i] = boards[i] as int8; whether a cell is at fault. */
#define NARROW(name, type, sign)                                                       \
    static WIDE int narrow_##name(const void *boards, Py_ssize_t count, int8_t *out) { \
        const type *cell = boards;                                                     \
        int bad = 0;                                                                   \
        for (Py_ssize_t i = 0; i < count; i++) {                                       \
            bad |= FAULT_##sign(cell[i]);                                              \
            out[i] = (int8_t)cell[i];                                                  \
        }                                                                              \
        return bad;                                                                    \
    }

EACH_TYPE(NARROW)

typedef int (*NarrowLoop)(const void *, Py_ssize_t, int8_t *);

/* The boards ``obj``: a C-contiguous (rows, cells) array of integers of 1 to 8 bytes; NULL with
 * an error set if not. Its loop of narrow in ``narrow``. */
static Py_buffer *boards_of(Held *held, PyObject *obj, NarrowLoop *narrow) {
    Py_buffer *view = integers(held, obj, "boards", 0);
    if (view == NULL) return NULL;
    int sign = is_signed(integer_code(view->format));
    switch (view->itemsize) {
    case 1: *narrow = sign ? narrow_i8 : narrow_u8; break;
    case 2: *narrow = sign ? narrow_i16 : narrow_u16; break;
    case 4: *narrow = sign ? narrow_i32 : narrow_u32; break;
    case 8: *narrow = sign ? narrow_i64 : narrow_u64; break;
    default: *narrow = NULL;
    }
    if (*narrow == NULL || view->ndim != 2) {
        PyErr_SetString(PyExc_TypeError, "boards: a 2-dimensional array of 1- to 8-byte integers expected");
        return NULL;
    }
    return view;
}

/* -- up to 16 cells: a byte a code ---------------------------------------------------------- */

/* codes[row] = the code of each of ``rows`` int8 boards (sum of (cell + 1) * weights[cell]);
 * whether a cell is at fault. Two loops with no branch, the check of the cells and the codes:
 * vector loops, where one was not. In 32 bits (a code below 3**20 fits; a board at fault, whose
 * code may wrap, is dropped). */
static inline int codes_of(const int8_t *cell, Py_ssize_t cells, const uint32_t *weights, Py_ssize_t rows,
                           uint32_t *codes) {
    uint8_t bad = 0;
    for (Py_ssize_t i = 0; i < rows * cells; i++) bad |= (uint8_t)(cell[i] + 1) > 2;
    for (Py_ssize_t row = 0; row < rows; row++) {
        uint32_t code = 0;
        for (Py_ssize_t c = 0; c < cells; c++) code += (uint32_t)(cell[row * cells + c] + 1) * weights[c];
        codes[row] = code;
    }
    return bad;
}

/* codes_of, its cell count a constant for the boards of the common variants (3x3, 3x4, 3x5,
 * 4x4), so that the compiler unrolls the cells' loop. */
static SEPARATE WIDE int codes_any(const int8_t *cell, Py_ssize_t cells, const uint32_t *weights, Py_ssize_t rows,
                                   uint32_t *codes) {
    switch (cells) {
    case 9: return codes_of(cell, 9, weights, rows, codes);
    case 12: return codes_of(cell, 12, weights, rows, codes);
    case 15: return codes_of(cell, 15, weights, rows, codes);
    case 16: return codes_of(cell, 16, weights, rows, codes);
    default: return codes_of(cell, cells, weights, rows, codes);
    }
}

PyDoc_STRVAR(gather_bytes_doc,
             "gather_bytes(boards, weights, table, translate, out) -> bool\n\n"
             "out[i] = translate[table[code of boards[i]]] (codes: sum of (cell + 1) * weights[cell]); False,\n"
             "some rows not filled, if a row has a cell other than +1, -1 or 0, or an entry of 255 (no legal\n"
             "board). boards: (rows, cells) int8; weights: int64; table: uint8; translate, out: 1-byte.");

static PyObject *gather_bytes(PyObject *self, PyObject *args) {
    PyObject *boards, *weights, *table, *translate, *out;
    Py_ssize_t cells, size;
    Held store = {.count = 0}, *held = &store;
    NarrowLoop narrow_loop;
    if (!PyArg_ParseTuple(args, "OOOOO", &boards, &weights, &table, &translate, &out)) return NULL;
    Py_buffer *view = boards_of(held, boards, &narrow_loop);
    if (view != NULL && narrow_loop != narrow_i8) {
        PyErr_SetString(PyExc_TypeError, "boards: int8 expected");
        goto fail;
    }
    const int64_t *weight = view ? I64(weights, 0, &cells) : NULL;
    const uint8_t *entries = weight ? U8(table, 0, &size) : NULL;
    const uint8_t *translated = entries ? BYTES(translate, 256, NULL) : NULL;
    Py_ssize_t rows = view ? view->shape[0] : 0;
    uint8_t *into = translated ? BYTES_OUT(out, rows, NULL) : NULL;
    if (into == NULL) goto fail;
    uint64_t largest = 0; /* the largest code: every cell +1, its digit 2 */
    uint32_t narrow_weights[MAX_CELLS];
    for (Py_ssize_t c = 0; c < cells && c < MAX_CELLS && largest < (uint64_t)size; c++) {
        largest = weight[c] < 0 ? (uint64_t)size : largest + 2 * (uint64_t)weight[c];
        narrow_weights[c] = (uint32_t)weight[c];
    }
    if (view->shape[1] != cells || cells > MAX_CELLS || largest >= (uint64_t)size || largest > UINT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "weights: not one a cell, or codes beyond the table");
        goto fail;
    }
    int answered = 1;
    uint32_t codes[BLOCK];
    Py_BEGIN_ALLOW_THREADS;
    const int8_t *cell = view->buf;
    for (Py_ssize_t start = 0; start < rows; start += BLOCK) {
        Py_ssize_t count = rows - start < BLOCK ? rows - start : BLOCK;
        if (codes_any(cell + start * cells, cells, narrow_weights, count, codes)) {
            answered = 0;
            break;
        }
        int missing = 0;
        for (Py_ssize_t row = 0; row < count; row++) { /* independent reads: the processor overlaps their misses */
            uint8_t entry = entries[codes[row]];
            missing |= entry == 255;
            into[start + row] = translated[entry];
        }
        if (missing) {
            answered = 0;
            break;
        }
    }
    Py_END_ALLOW_THREADS;
    release(held);
    return PyBool_FromLong(answered);
fail:
    release(held);
    return NULL;
}

PyDoc_STRVAR(narrow_doc,
             "narrow(boards, out) -> bool\n\n"
             "out = boards ((rows, cells) integers of 1 to 8 bytes, signed or not) as int8; False, some\n"
             "cells not copied, at a value other than +1, -1 or 0.");

static PyObject *narrow(PyObject *self, PyObject *args) {
    PyObject *boards, *out;
    Held store = {.count = 0}, *held = &store;
    NarrowLoop narrow_loop;
    if (!PyArg_ParseTuple(args, "OO", &boards, &out)) return NULL;
    Py_buffer *view = boards_of(held, boards, &narrow_loop);
    Py_ssize_t count = view ? view->len / view->itemsize : 0;
    int8_t *into = view ? I8_OUT(out, count, NULL) : NULL;
    if (into == NULL) {
        release(held);
        return NULL;
    }
    int bad;
    Py_BEGIN_ALLOW_THREADS;
    bad = narrow_loop(view->buf, count, into);
    Py_END_ALLOW_THREADS;
    release(held);
    return PyBool_FromLong(!bad);
}

/* -- 16 cells: two bits a board by rank ----------------------------------------------------- */

/* A 16-cell board is read as two little-endian 64-bit words, eight cells each: byte j is the
 * half's cell j, its first cell the most significant digit of its half code. Each byte's digit
 * (cell + 1) is made with no carry between bytes: its low seven bits plus one, its high bit
 * flipped back. */
#define LOW_SEVEN 0x7F7F7F7F7F7F7F7FULL
#define HIGH_BITS 0x8080808080808080ULL
#define ONES 0x0101010101010101ULL
#define PAST_TWO 0x7D7D7D7D7D7D7D7DULL /* + a byte's low seven bits: bit 7 set from 3 up */
#define EVEN_BYTES 0x00FF00FF00FF00FFULL
#define EVEN_PAIRS 0x0000FFFF0000FFFFULL
#define TWO_BITS 0x0303030303030303ULL /* a digit's (the rest: a cell at fault) */

static inline uint64_t little_endian(uint64_t word) {
#if PY_BIG_ENDIAN
    return __builtin_bswap64(word);
#else
    return word;
#endif
}

/* Each word's half code (13 bits) and digit sum (from bit 16: 8 + X's marks less O's), where
 * the word's bytes are +1, -1 or 0; nonzero if a byte of the words is not (a digit above 2: the
 * halves are then of no use). One loop: a vector loop, where two cost more. */
static SEPARATE WIDE uint64_t halves_of(const uint64_t *words, Py_ssize_t count, uint32_t *halves) {
    uint64_t faults = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        uint64_t word = little_endian(words[i]);
        uint64_t digits = ((word & LOW_SEVEN) + ONES) ^ (word & HIGH_BITS);
        faults |= (((digits & LOW_SEVEN) + PAST_TWO) | digits) & HIGH_BITS;
        uint64_t pairs = ((digits * (1 + (3 << 8))) >> 8) & EVEN_BYTES;  /* 16 bits each: 3 * digit + the next */
        uint64_t fours = ((pairs * (1 + (9 << 16))) >> 16) & EVEN_PAIRS; /* 32 bits each: 9 * pair + the next */
        uint64_t code = (fours * (1 + (81ULL << 32))) >> 32;             /* 81 * the first four + the last */
        uint64_t sum = ((digits & TWO_BITS) * ONES) >> 56;               /* the bytes added up in the top one */
        halves[i] = (uint32_t)(code | sum << 16);
    }
    return faults;
}

/* Whether on a board X has neither as many marks as O nor one more (digit sum not 16 or 17). */
static SEPARATE WIDE int counts_wrong(const uint32_t *halves, Py_ssize_t rows) {
    int wrong = 0;
    for (Py_ssize_t row = 0; row < rows; row++) {
        uint32_t total = (halves[2 * row] + halves[2 * row + 1]) >> 16;
        wrong |= (total ^ 16) > 1;
    }
    return wrong;
}

/* Each board's rank (ranked_values.RankedValues) from its two halves; whether one is beyond
 * ``limit`` (tables that do not belong together). */
static SEPARATE int ranks_of(const uint32_t *halves, const int32_t *base, const uint16_t *position, Py_ssize_t rows,
                             uint32_t limit, uint32_t *ranks) {
    int beyond = 0;
    for (Py_ssize_t row = 0; row < rows; row++) {
        uint32_t high = halves[2 * row] & 0xFFFF, low = halves[2 * row + 1] & 0xFFFF;
        ranks[row] = (uint32_t)(base[high] + (int32_t)position[low]);
        beyond |= ranks[row] >= limit;
    }
    return beyond;
}

static SEPARATE void read_bytes(const uint32_t *ranks, const uint8_t *packed, Py_ssize_t rows, uint8_t *found) {
    for (Py_ssize_t row = 0; row < rows; row++) found[row] = packed[ranks[row] >> 2]; /* only the reads: more in flight */
}

/* out = each rank's value from its byte; whether a rank has no legal board. */
static SEPARATE WIDE int decode(const uint32_t *ranks, const uint8_t *found, Py_ssize_t rows, int8_t *out) {
    int missing = 0;
    for (Py_ssize_t row = 0; row < rows; row++) {
        int two = (found[row] >> ((ranks[row] & 3) << 1)) & 3;
        missing |= two == 0;
        out[row] = (int8_t)(two - 2);
    }
    return missing;
}

PyDoc_STRVAR(values_by_rank_doc,
             "values_by_rank(words, base, position, packed, out) -> bool\n\n"
             "The value of each 16-cell board (two uint64 words a board) from two bits a rank\n"
             "(ranked_values.RankedValues: base int32, position uint16, packed uint8), into out (int8);\n"
             "False, some rows not filled, if a board has a cell other than +1, -1 or 0, impossible piece\n"
             "counts, or no legal board at its rank.");

static PyObject *values_by_rank(PyObject *self, PyObject *args) {
    PyObject *words, *base, *position, *packed, *out;
    Py_ssize_t rows, size;
    Held store = {.count = 0}, *held = &store;
    if (!PyArg_ParseTuple(args, "OOOOO", &words, &base, &position, &packed, &out)) return NULL;
    int8_t *values = I8_OUT(out, 0, &rows);
    const uint64_t *word = values ? U64(words, 2 * rows, NULL) : NULL;
    const int32_t *bases = word ? I32(base, HALF_CODES, NULL) : NULL;
    const uint16_t *positions = bases ? U16(position, HALF_CODES, NULL) : NULL;
    const uint8_t *bytes = positions ? U8(packed, 0, &size) : NULL;
    if (bytes == NULL) {
        release(held);
        return NULL;
    }
    Py_ssize_t block = rows < BOARDS_A_BLOCK ? rows : BOARDS_A_BLOCK;
    uint32_t limit = size < (1 << 30) ? (uint32_t)size * 4 : UINT32_MAX; /* ranks the table has */
    char *scratch = PyMem_RawMalloc((size_t)(block + 1) * (2 * sizeof(uint32_t) + sizeof(uint32_t) + 1));
    if (scratch == NULL) {
        release(held);
        return PyErr_NoMemory();
    }
    uint32_t *halves = (uint32_t *)scratch, *ranks = halves + 2 * (block + 1);
    uint8_t *found = (uint8_t *)(ranks + block + 1);
    int answered = 1, beyond = 0;
    Py_BEGIN_ALLOW_THREADS;
    for (Py_ssize_t start = 0; start < rows; start += block) {
        Py_ssize_t count = rows - start < block ? rows - start : block;
        if (halves_of(word + 2 * start, 2 * count, halves) || counts_wrong(halves, count)) {
            answered = 0;
            break;
        }
        if ((beyond = ranks_of(halves, bases, positions, count, limit, ranks))) break;
        read_bytes(ranks, bytes, count, found);
        if (decode(ranks, found, count, values + start)) {
            answered = 0;
            break;
        }
    }
    Py_END_ALLOW_THREADS;
    PyMem_RawFree(scratch);
    release(held);
    if (beyond) {
        PyErr_SetString(PyExc_IndexError, "a rank is beyond packed");
        return NULL;
    }
    return PyBool_FromLong(answered);
}

static PyMethodDef methods[] = {
    {"gather_bytes", gather_bytes, METH_VARARGS, gather_bytes_doc},
    {"narrow", narrow, METH_VARARGS, narrow_doc},
    {"values_by_rank", values_by_rank, METH_VARARGS, values_by_rank_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "ttt_solver.lookup.batch_loops",
    .m_doc = "The batch lookups' compiled loops (see batch_kernels.py, which calls them).",
    .m_size = 0,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit_batch_loops(void) { return PyModule_Create(&module); }
