/* The arrays a compiled loop takes, for both C extensions of the package (the solver's,
 * solver/kernels.c, and the batch lookups', lookup/batch_loops.c): read through the buffer
 * protocol (no numpy headers, so the extensions do not depend on numpy's version), each one
 * checked as it is taken (C-contiguous integers of this machine's byte order, of the element
 * size, sign and length the loop reads), and all of a call's released together at its end.
 */
#ifndef TTT_SOLVER_BUFFERS_H
#define TTT_SOLVER_BUFFERS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdio.h>
#include <string.h>

#define MAX_ARRAYS 40 /* arrays one call takes, at most */

/* The arrays one call holds, released together at its end. */
typedef struct {
    Py_buffer views[MAX_ARRAYS];
    int count;
} Held;

static void release(Held *held) {
    for (int i = 0; i < held->count; i++) PyBuffer_Release(&held->views[i]);
    held->count = 0;
}

/* The struct code of a buffer's elements if they are integers in this machine's byte order
 * ('B' for a buffer of no format: bytes), else 0. */
static char integer_code(const char *format) {
    if (format == NULL) return 'B';
    if (*format == '@' || *format == '=' || *format == (PY_LITTLE_ENDIAN ? '<' : '>')) format++;
    if (format[0] == '\0' || format[1] != '\0' || strchr("bBhHiIlLqQnN", format[0]) == NULL) return 0;
    return format[0];
}

/* Whether an integer code is a signed one (struct's lower-case codes). */
static int is_signed(char code) { return code >= 'a' && code <= 'z'; }

/* The view of ``obj``, a C-contiguous array of native integers; NULL with an error set if not. */
static Py_buffer *integers(Held *held, PyObject *obj, const char *name, int writable) {
    if (held->count == MAX_ARRAYS) {
        PyErr_SetString(PyExc_RuntimeError, "too many arrays in one call");
        return NULL;
    }
    Py_buffer *view = &held->views[held->count];
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) return NULL;
    held->count++;
    if (integer_code(view->format) == 0) {
        PyErr_Format(PyExc_TypeError, "%s: native integers expected, not format %s", name, view->format);
        return NULL;
    }
    return view;
}

/* The data of the C-contiguous array ``obj`` of ``size``-byte integers, signed or not (``sign``
 * -1: either), of at least ``least`` elements (its length in ``length`` if given); NULL with
 * TypeError or ValueError set otherwise. ``name``: the argument's, as the error names it (the
 * ``_obj`` that ends the name of a C variable holding it left out). */
static void *array(Held *held, PyObject *obj, const char *name, Py_ssize_t size, int sign, int writable,
                   Py_ssize_t least, Py_ssize_t *length) {
    char shown[64];
    size_t named = strlen(name);
    if (named > 4 && strcmp(name + named - 4, "_obj") == 0) named -= 4;
    snprintf(shown, sizeof shown, "%.*s", (int)named, name);
    Py_buffer *view = integers(held, obj, shown, writable);
    if (view == NULL) return NULL;
    if (view->itemsize != size || (sign >= 0 && is_signed(integer_code(view->format)) != sign)) {
        PyErr_Format(PyExc_TypeError, "%s: %s%zd-byte integers expected, not format %s", shown,
                     sign < 0 ? "" : sign ? "signed " : "unsigned ", size, view->format ? view->format : "B");
        return NULL;
    }
    Py_ssize_t count = view->len / size;
    if (count < least) {
        PyErr_Format(PyExc_ValueError, "%s: %zd elements, %zd expected at least", shown, count, least);
        return NULL;
    }
    if (length != NULL) *length = count;
    return view->buf;
}

#endif
