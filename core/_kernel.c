/* citeledger.core._kernel: the hot path of cutting responses into sections, in C.
 *
 * Each function returns exactly what its pure-Python counterpart returns
 * (tests/test_kernel.py checks them against each other on hostile inputs);
 * core/kernel.py picks this module when it is built and CITELEDGER_PURE is
 * not set.
 *
 *   utf16_len(str) -> int     JavaScript's .length (jsstr.utf16_len)
 *   utf8_len(str) -> int      UTF-8 bytes, a lone surrogate 3 (units._utf8_len)
 *   cut(text, trailer) -> [(start, end, path, suffix), ...]
 *       the sections of a response under the default header pattern
 *       (splitter.py, which uses re for any other pattern)
 *   header_parse(str) -> (parsed, items, more, tags, bare)
 *       a header suffix read as header.lark reads it: its tokens (one
 *       left-to-right pass, the grammar's terminals by priority) and the
 *       tag brackets. parsed: whether the grammar accepts it; items: the
 *       SYMBOL_ITEM tokens as (name, kind), which are the matches of the
 *       item pattern; more: the count of the last `+N more` among the names
 *       (before the first annotation, outside tags), or None; tags: every
 *       render tag's word, in order; bare: the WORD tokens among the names.
 *       Where lark's contextual lexer decides by parser state, so does this
 *       scan, by the token before: ")" is RPAR except right after the path
 *       or a "·" (OTHER there); "·" is DOT except right after a tag opener.
 *
 * The item pattern's greedy class cannot contain "(", so a match starting
 * inside a run of name characters reaches the run's end, and a token that
 * starts a run is the only start that can match (the grammar's argument,
 * header.lark); tests/test_kernel.py checks all of it against lark.
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
    (void)self;
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
    (void)self;
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "utf8_len() needs a str");
        return NULL;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(arg), total = n;
    int kind = PyUnicode_KIND(arg);
    /* One typed loop per storage width (the compiler vectorises them): every
       character is one byte, plus one from U+0080, one more from U+0800
       (a lone surrogate too: surrogatepass writes 3), one more from U+10000. */
    if (kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *d = PyUnicode_1BYTE_DATA(arg);
        for (Py_ssize_t i = 0; i < n; i++)
            total += d[i] >= 0x80;
    } else if (kind == PyUnicode_2BYTE_KIND) {
        const Py_UCS2 *d = PyUnicode_2BYTE_DATA(arg);
        for (Py_ssize_t i = 0; i < n; i++)
            total += (d[i] >= 0x80) + (d[i] >= 0x800);
    } else {
        const Py_UCS4 *d = PyUnicode_4BYTE_DATA(arg);
        for (Py_ssize_t i = 0; i < n; i++)
            total += (d[i] >= 0x80) + (d[i] >= 0x800) + (d[i] >= 0x10000);
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

/* Append s[a:b] to list; 0 on success. */
static int
append_slice(PyObject *list, PyObject *s, Py_ssize_t a, Py_ssize_t b)
{
    PyObject *x = PyUnicode_Substring(s, a, b);
    if (x == NULL)
        return -1;
    int r = PyList_Append(list, x);
    Py_DECREF(x);
    return r;
}

/* What the lexer state depends on: the token before. */
enum { AFTER_CLOSE, AFTER_DOT, AFTER_TAG_OPEN, AFTER_PIECE };

static PyObject *
header_parse(PyObject *self, PyObject *arg)
{
    (void)self;
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "header_parse() needs a str");
        return NULL;
    }
    int kind = PyUnicode_KIND(arg);
    const void *d = PyUnicode_DATA(arg);
    Py_ssize_t n = PyUnicode_GET_LENGTH(arg);
    PyObject *items = PyList_New(0), *tags = PyList_New(0), *bare = PyList_New(0);
    PyObject *more_text = NULL; /* the digits of the last count of the names */
    if (items == NULL || tags == NULL || bare == NULL)
        goto error;
    int ok = 1, prev = AFTER_CLOSE, in_names = 1;
    Py_ssize_t depth = 0, i = 0;
    while (i < n) {
        Py_UCS4 c = PyUnicode_READ(kind, d, i);
        if (name_start(c)) {
            Py_ssize_t end = i;
            while (end < n && name_char(PyUnicode_READ(kind, d, end)))
                end++;
            /* SYMBOL_ITEM: the run, then ( kinds ) */
            if (end + 2 < n && PyUnicode_READ(kind, d, end) == '(') {
                Py_ssize_t k = end + 1;
                while (k < n && kind_char(PyUnicode_READ(kind, d, k)))
                    k++;
                if (k > end + 1 && k < n && PyUnicode_READ(kind, d, k) == ')') {
                    PyObject *pair = Py_BuildValue(
                        "(NN)", PyUnicode_Substring(arg, i, end), PyUnicode_Substring(arg, end + 1, k));
                    if (pair == NULL || PyList_Append(items, pair) < 0) {
                        Py_XDECREF(pair);
                        goto error;
                    }
                    Py_DECREF(pair);
                    prev = AFTER_PIECE;
                    i = k + 1;
                    continue;
                }
            }
            /* TAG_OPEN: [A-Za-z][A-Za-z_-]* then " (" */
            if (is_alpha(c)) {
                Py_ssize_t t = i + 1;
                while (t < n && tag_char(PyUnicode_READ(kind, d, t)))
                    t++;
                if (t + 1 < n && PyUnicode_READ(kind, d, t) == ' ' && PyUnicode_READ(kind, d, t + 1) == '(') {
                    if (append_slice(tags, arg, i, t) < 0)
                        goto error;
                    depth++;
                    prev = AFTER_TAG_OPEN;
                    i = t + 2;
                    continue;
                }
            }
            /* WORD: a bare name when it stands in the names themselves */
            if (in_names && depth == 0 && append_slice(bare, arg, i, end) < 0)
                goto error;
            prev = AFTER_PIECE;
            i = end;
            continue;
        }
        if (c == '+') {
            Py_ssize_t e = more_at(kind, d, n, i);
            if (e >= 0) {
                if (in_names && depth == 0) {
                    Py_XDECREF(more_text);
                    more_text = PyUnicode_Substring(arg, i + 1, e - 5);
                    if (more_text == NULL)
                        goto error;
                }
                prev = AFTER_PIECE;
                i = e;
                continue;
            }
        } else if (c == ')' && prev != AFTER_CLOSE && prev != AFTER_DOT) {
            /* RPAR: it closes a tag, or nothing accepts it */
            if (depth == 0)
                ok = 0;
            else
                depth--;
            prev = AFTER_PIECE;
            i++;
            continue;
        } else if (c == DOT && prev != AFTER_TAG_OPEN) {
            /* DOT: an annotation begins; inside a tag nothing accepts it */
            if (depth > 0)
                ok = 0;
            in_names = 0;
            prev = AFTER_DOT;
            i++;
            continue;
        }
        prev = AFTER_PIECE; /* COMMA or OTHER: one character of text */
        i++;
    }
    if (depth > 0)
        ok = 0; /* a tag left open */
    PyObject *count;
    if (more_text == NULL) {
        count = Py_NewRef(Py_None);
    } else {
        count = PyLong_FromUnicodeObject(more_text, 10);
        Py_CLEAR(more_text);
        if (count == NULL)
            goto error;
    }
    return Py_BuildValue("(ONNNN)", ok ? Py_True : Py_False, items, count, tags, bare);
error:
    Py_XDECREF(items);
    Py_XDECREF(tags);
    Py_XDECREF(bare);
    Py_XDECREF(more_text);
    return NULL;
}

static inline int line_end(Py_UCS4 c) { return c == '\n' || c == '\r' || c == 0x2028 || c == 0x2029; }

/* The first index >= from where `needle` occurs in `text`, or -1. */
static Py_ssize_t
find_str(PyObject *text, PyObject *needle, Py_ssize_t from)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (PyUnicode_GET_LENGTH(needle) == 0 || from > n)
        return -1;
    return PyUnicode_Find(text, needle, from, n, 1);
}

/* cut(text, trailer) -> [(start, end, path, suffix), ...]
 *
 * The sections of a response under the default header pattern
 *   \*\*(?<![^\n\r\u2028\u2029]\*\*)`([^`]+)`\*\*([^\n\r\u2028\u2029]*)
 * (JavaScript's /^\*\*`([^`]+)`\*\*(.*)$/m): "**`" at a line start (the
 * text's start or after \n \r U+2028 U+2029), a path of one or more
 * non-backtick characters (line ends included), "`**", the suffix up to the
 * next line end. A failed start leaves the search at the next "**"; a match
 * resumes it after its suffix, as re.finditer does. A section ends where the
 * next header starts; the last one at the first `trailer` after its start,
 * or the end of the text (an empty trailer: the end).
 */
static PyObject *
cut(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *text, *trailer;
    if (!PyArg_ParseTuple(args, "UU:cut", &text, &trailer))
        return NULL;
    int kind = PyUnicode_KIND(text);
    const void *d = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    Py_ssize_t prev_start = -1;
    PyObject *prev_path = NULL, *prev_suffix = NULL;
    Py_ssize_t i = 0;
    while (i + 5 < n) { /* "**`" + a path char + "`**": six characters at least */
        Py_ssize_t at = PyUnicode_FindChar(text, '*', i, n, 1);
        if (at < 0 || at + 5 >= n)
            break;
        i = at + 1;
        if (PyUnicode_READ(kind, d, at + 1) != '*' || PyUnicode_READ(kind, d, at + 2) != '`')
            continue;
        if (at > 0 && !line_end(PyUnicode_READ(kind, d, at - 1)))
            continue;
        Py_ssize_t close = PyUnicode_FindChar(text, '`', at + 3, n, 1);
        if (close < 0)
            break; /* no backtick after: no later start can close its path either */
        if (close == at + 3 || close + 2 >= n || PyUnicode_READ(kind, d, close + 1) != '*' ||
            PyUnicode_READ(kind, d, close + 2) != '*')
            continue;
        Py_ssize_t end = close + 3;
        while (end < n && !line_end(PyUnicode_READ(kind, d, end)))
            end++;
        PyObject *path = PyUnicode_Substring(text, at + 3, close);
        PyObject *suffix = PyUnicode_Substring(text, close + 3, end);
        if (path == NULL || suffix == NULL) {
            Py_XDECREF(path);
            Py_XDECREF(suffix);
            goto error;
        }
        if (prev_path != NULL) {
            PyObject *item = Py_BuildValue("(nnNN)", prev_start, at, prev_path, prev_suffix);
            prev_path = prev_suffix = NULL;
            if (item == NULL || PyList_Append(out, item) < 0) {
                Py_XDECREF(item);
                Py_DECREF(path);
                Py_DECREF(suffix);
                goto error;
            }
            Py_DECREF(item);
        }
        prev_start = at;
        prev_path = path;
        prev_suffix = suffix;
        i = end;
    }
    if (prev_path != NULL) {
        Py_ssize_t last = find_str(text, trailer, prev_start);
        if (last == -2)
            goto error;
        PyObject *item = Py_BuildValue("(nnNN)", prev_start, last < 0 ? n : last, prev_path, prev_suffix);
        prev_path = prev_suffix = NULL;
        if (item == NULL || PyList_Append(out, item) < 0) {
            Py_XDECREF(item);
            goto error;
        }
        Py_DECREF(item);
    }
    return out;
error:
    Py_XDECREF(prev_path);
    Py_XDECREF(prev_suffix);
    Py_DECREF(out);
    return NULL;
}

static PyMethodDef methods[] = {
    {"utf16_len", utf16_len, METH_O, "JavaScript string length (UTF-16 code units)."},
    {"utf8_len", utf8_len, METH_O, "UTF-8 bytes, a lone surrogate counting 3."},
    {"cut", cut, METH_VARARGS, "[(start, end, path, suffix)] of a response under the default header pattern."},
    {"header_parse", header_parse, METH_O, "(parsed, items, more, tags, bare names) of a header suffix."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_kernel", NULL, -1, methods};

PyMODINIT_FUNC
PyInit__kernel(void)
{
    return PyModule_Create(&module);
}
