/* citeledger.core._kernel: the hot path of cutting responses into sections, in C.
 *
 * Each function returns exactly what its pure-Python counterpart returns
 * (tests/test_kernel.py checks them against each other on hostile inputs);
 * core/kernel.py picks this module when it is built and CITELEDGER_PURE is
 * not set.
 *
 *   utf16_len(str) -> int     JavaScript's .length (jsstr.utf16_len)
 *   utf8_len(str) -> int      UTF-8 bytes, a lone surrogate 3 (units._utf8_len)
 *   header_scan(str) -> (items, tag_possible, stray_rpar, more)
 *       for a header suffix (header._plain): items = the matches of
 *       ([A-Za-z_$][A-Za-z0-9_$.]*)\(([a-z_]+)\) as (name, kind) pairs, as
 *       re.findall gives them; tag_possible = whether [A-Za-z][A-Za-z_-]* \(
 *       matches anywhere; stray_rpar = whether a ")" outside every item
 *       follows a character other than "·" (or an item); more = the count of
 *       the last \+[0-9]+ more(?![A-Za-z0-9_$.(]) before the first "·", or None.
 *
 * Every scan is one left-to-right pass: the item pattern's greedy class
 * cannot contain "(", so a match starting inside a run of class characters
 * reaches the run's end; the leftmost start is the run's first character
 * that can start a name, and a run that fails fails from every start.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define DOT 0x00B7 /* "·": the grammar's annotation separator */

static inline int is_alpha(Py_UCS4 c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
static inline int is_digit(Py_UCS4 c) { return c >= '0' && c <= '9'; }
static inline int name_start(Py_UCS4 c) { return is_alpha(c) || c == '_' || c == '$'; }
static inline int name_char(Py_UCS4 c) { return name_start(c) || is_digit(c) || c == '.'; }
static inline int kind_char(Py_UCS4 c) { return (c >= 'a' && c <= 'z') || c == '_'; }
static inline int tag_char(Py_UCS4 c) { return is_alpha(c) || c == '_' || c == '-'; }

static PyObject *
utf16_len(PyObject *self, PyObject *arg)
{
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "utf16_len() needs a str");
        return NULL;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(arg), extra = 0;
    if (PyUnicode_KIND(arg) == PyUnicode_4BYTE_KIND) {
        const Py_UCS4 *d = PyUnicode_4BYTE_DATA(arg);
        for (Py_ssize_t i = 0; i < n; i++)
            extra += d[i] > 0xFFFF; /* outside the BMP: a surrogate pair */
    }
    return PyLong_FromSsize_t(n + extra);
}

static PyObject *
utf8_len(PyObject *self, PyObject *arg)
{
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "utf8_len() needs a str");
        return NULL;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(arg), total = 0;
    int kind = PyUnicode_KIND(arg);
    const void *data = PyUnicode_DATA(arg);
    if (kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *d = data;
        for (Py_ssize_t i = 0; i < n; i++)
            total += d[i] < 0x80 ? 1 : 2;
    } else {
        for (Py_ssize_t i = 0; i < n; i++) {
            Py_UCS4 c = PyUnicode_READ(kind, data, i);
            total += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4; /* surrogatepass: 3 */
        }
    }
    return PyLong_FromSsize_t(total);
}

/* The end of "+N more" starting at i (a MORE token), or -1. */
static Py_ssize_t
more_at(int kind, const void *d, Py_ssize_t n, Py_ssize_t i)
{
    if (PyUnicode_READ(kind, d, i) != '+')
        return -1;
    Py_ssize_t j = i + 1;
    while (j < n && is_digit(PyUnicode_READ(kind, d, j)))
        j++;
    if (j == i + 1 || j + 5 > n)
        return -1;
    static const char word[] = " more";
    for (int k = 0; k < 5; k++)
        if (PyUnicode_READ(kind, d, j + k) != (Py_UCS4)word[k])
            return -1;
    j += 5;
    if (j < n) {
        Py_UCS4 c = PyUnicode_READ(kind, d, j);
        if (name_char(c) || c == '(')
            return -1;
    }
    return j;
}

static PyObject *
header_scan(PyObject *self, PyObject *arg)
{
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "header_scan() needs a str");
        return NULL;
    }
    int kind = PyUnicode_KIND(arg);
    const void *d = PyUnicode_DATA(arg);
    Py_ssize_t n = PyUnicode_GET_LENGTH(arg);
    PyObject *items = PyList_New(0);
    if (items == NULL)
        return NULL;
    int tag_possible = 0, stray = 0;
    /* prev: what precedes position i once items are taken out: 0 the start,
       1 a "·", 2 anything else (an item included). */
    int prev = 0;
    Py_ssize_t first_dot = -1;
    PyObject *more_text = NULL; /* the digits of the last count seen */
    Py_ssize_t i = 0;
    while (i < n) {
        Py_UCS4 c = PyUnicode_READ(kind, d, i);
        if (name_char(c)) {
            Py_ssize_t run = i, end = i;
            while (end < n && name_char(PyUnicode_READ(kind, d, end)))
                end++;
            Py_ssize_t start = run;
            while (start < end && !name_start(PyUnicode_READ(kind, d, start)))
                start++;
            /* ( kinds ) right after the run, and a start inside it */
            if (start < end && end + 2 < n && PyUnicode_READ(kind, d, end) == '(') {
                Py_ssize_t k = end + 1;
                while (k < n && kind_char(PyUnicode_READ(kind, d, k)))
                    k++;
                if (k > end + 1 && k < n && PyUnicode_READ(kind, d, k) == ')') {
                    PyObject *pair = Py_BuildValue(
                        "(NN)", PyUnicode_Substring(arg, start, end), PyUnicode_Substring(arg, end + 1, k));
                    if (pair == NULL || PyList_Append(items, pair) < 0) {
                        Py_XDECREF(pair);
                        Py_XDECREF(more_text);
                        Py_DECREF(items);
                        return NULL;
                    }
                    Py_DECREF(pair);
                    prev = 2;
                    i = k + 1;
                    continue;
                }
            }
            /* not an item: the run's characters stay as they are */
            prev = 2;
            i = end;
            continue;
        }
        if (c == ')') {
            if (prev != 0 && prev != 1)
                stray = 1;
            prev = 2;
        } else if (c == DOT) {
            if (first_dot < 0)
                first_dot = i;
            prev = 1;
        } else {
            if (c == '+' && first_dot < 0) {
                Py_ssize_t e = more_at(kind, d, n, i);
                if (e >= 0) {
                    Py_XDECREF(more_text);
                    more_text = PyUnicode_Substring(arg, i + 1, e - 5);
                    if (more_text == NULL) {
                        Py_DECREF(items);
                        return NULL;
                    }
                    prev = 2;
                    i = e;
                    continue;
                }
            }
            prev = 2;
        }
        i++;
    }
    /* A tag opener: " (" after a run of [A-Za-z_-] holding a letter. */
    for (Py_ssize_t j = 1; j + 1 < n && !tag_possible; j++) {
        if (PyUnicode_READ(kind, d, j) != ' ' || PyUnicode_READ(kind, d, j + 1) != '(')
            continue;
        for (Py_ssize_t k = j - 1; k >= 0 && tag_char(PyUnicode_READ(kind, d, k)); k--) {
            if (is_alpha(PyUnicode_READ(kind, d, k))) {
                tag_possible = 1;
                break;
            }
        }
    }
    PyObject *count;
    if (more_text == NULL) {
        count = Py_NewRef(Py_None);
    } else {
        count = PyLong_FromUnicodeObject(more_text, 10);
        Py_DECREF(more_text);
        if (count == NULL) {
            Py_DECREF(items);
            return NULL;
        }
    }
    return Py_BuildValue("(NOON)", items, tag_possible ? Py_True : Py_False, stray ? Py_True : Py_False, count);
}

static PyMethodDef methods[] = {
    {"utf16_len", utf16_len, METH_O, "JavaScript string length (UTF-16 code units)."},
    {"utf8_len", utf8_len, METH_O, "UTF-8 bytes, a lone surrogate counting 3."},
    {"header_scan", header_scan, METH_O, "(items, tag_possible, stray_rpar, more) of a header suffix."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_kernel", NULL, -1, methods};

PyMODINIT_FUNC
PyInit__kernel(void)
{
    return PyModule_Create(&module);
}
