/* citeledger.core._scan: reading JSONL transcripts, in C.
 *
 * A selective JSON decoder for the common line: it splits a buffer into
 * "\n"-separated lines and decodes each into the Python value orjson.loads
 * would give, except that objects keep only the keys a reader declares it
 * reads (a key schema, compiled once from a nested dict by `schema`). What
 * it skips it still validates as JSON. Whenever a line is anything but
 * plain (invalid UTF-8, a lone surrogate escape, a number where a value is
 * kept, an escaped or non-ASCII key in a pruned object, deep nesting, a
 * value that is not an object, invalid JSON of any kind) it gives the line's
 * raw bytes back instead, and readers/jsonl.py decodes that line exactly as
 * it does without this module (decode_line, the same warnings). So for every
 * input the reader sees the same values and messages, only fewer keys.
 *
 *   schema(spec) -> capsule
 *       spec: {key: None | spec | [spec]}. None keeps the value whole; a
 *       dict prunes the value by it when the value is an object (kept whole
 *       otherwise); [spec] does so for every element of an array value.
 *   scan(buf, start, stop, number, max_line_bytes, schema, line_type)
 *       -> (items, number, handed_back)
 *       the lines of buf[start:stop] (the last may lack its "\n"), numbered
 *       from number + 1. Per line: nothing for a blank line (bytes.strip()
 *       empty once a UTF-8 BOM is removed); (number, None) for a line over
 *       max_line_bytes; line_type(number, value, bom) for a decoded line;
 *       (number, raw bytes) for the Python path to decode. handed_back
 *       counts the items that are not line_type (0: items is all Lines, and
 *       the reader hands the list on as it is).
 *
 * tests/test_scan.py checks every item against the pure path on hostile
 * lines and files.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define MAX_DEPTH 256 /* deeper lines go to the Python path (orjson stops at 1024) */

enum { KEEP, PRUNE, EACH };

typedef struct Node Node;
typedef struct {
    const char *name; /* UTF-8 of the key (ASCII in practice) */
    Py_ssize_t len;
    PyObject *key; /* the str used as the dict key */
    int mode;
    Node *child;
} Field;

struct Node {
    Py_ssize_t n;
    Field fields[];
};

static void
free_node(Node *node)
{
    if (node == NULL)
        return;
    for (Py_ssize_t i = 0; i < node->n; i++) {
        Py_XDECREF(node->fields[i].key);
        free_node(node->fields[i].child);
    }
    PyMem_Free(node);
}

static Node *
compile_node(PyObject *spec, int depth)
{
    if (!PyDict_Check(spec) || depth > 32) {
        PyErr_SetString(PyExc_TypeError, "schema(): a spec is a dict of key -> None | spec | [spec]");
        return NULL;
    }
    Py_ssize_t n = PyDict_GET_SIZE(spec);
    Node *node = PyMem_Calloc(1, sizeof(Node) + (size_t)n * sizeof(Field));
    if (node == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    PyObject *key, *value;
    Py_ssize_t pos = 0, i = 0;
    while (PyDict_Next(spec, &pos, &key, &value)) {
        Field *f = &node->fields[i];
        node->n = ++i;
        if (!PyUnicode_Check(key)) {
            PyErr_SetString(PyExc_TypeError, "schema(): keys are str");
            goto error;
        }
        f->name = PyUnicode_AsUTF8AndSize(key, &f->len);
        if (f->name == NULL)
            goto error;
        Py_INCREF(key);
        PyUnicode_InternInPlace(&key);
        f->key = key;
        if (value == Py_None) {
            f->mode = KEEP;
        } else if (PyList_Check(value) && PyList_GET_SIZE(value) == 1) {
            f->mode = EACH;
            f->child = compile_node(PyList_GET_ITEM(value, 0), depth + 1);
        } else {
            f->mode = PRUNE;
            f->child = compile_node(value, depth + 1);
        }
        if (f->mode != KEEP && f->child == NULL)
            goto error;
    }
    return node;
error:
    free_node(node);
    return NULL;
}

static void
schema_free(PyObject *capsule)
{
    free_node(PyCapsule_GetPointer(capsule, "citeledger._scan.schema"));
}

static PyObject *
schema(PyObject *self, PyObject *spec)
{
    (void)self;
    Node *node = compile_node(spec, 0);
    if (node == NULL)
        return NULL;
    PyObject *capsule = PyCapsule_New(node, "citeledger._scan.schema", schema_free);
    if (capsule == NULL)
        free_node(node);
    return capsule;
}

/* ---- the decoder ---------------------------------------------------- */

typedef struct {
    const unsigned char *p, *end;
    int depth;
    int fallback; /* set with a NULL return and no exception: give the line to Python */
    unsigned char *scratch; /* unescaped string bytes */
    Py_ssize_t cap;
} State;

#define FALLBACK(st) ((st)->fallback = 1, (void *)NULL)

static inline void
skip_ws(State *st)
{
    while (st->p < st->end && (*st->p == ' ' || *st->p == '\t' || *st->p == '\r' || *st->p == '\n'))
        st->p++;
}

/* The length of the valid UTF-8 sequence at q (its first byte >= 0x80), or 0. */
static inline int
utf8_seq(const unsigned char *q, const unsigned char *end)
{
    unsigned char c = q[0];
    Py_ssize_t left = end - q;
    if (c >= 0xC2 && c <= 0xDF)
        return left >= 2 && (q[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        if (left < 3 || (q[2] & 0xC0) != 0x80)
            return 0;
        unsigned char lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF; /* no overlong, no surrogate */
        return q[1] >= lo && q[1] <= hi ? 3 : 0;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (left < 4 || (q[2] & 0xC0) != 0x80 || (q[3] & 0xC0) != 0x80)
            return 0;
        unsigned char lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
        return q[1] >= lo && q[1] <= hi ? 4 : 0;
    }
    return 0;
}

static inline int
hex4(const unsigned char *q, Py_UCS4 *out)
{
    Py_UCS4 v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char c = q[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= c - '0';
        else if (c >= 'a' && c <= 'f')
            v |= c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            v |= c - 'A' + 10;
        else
            return 0;
    }
    *out = v;
    return 1;
}

/* The escape at q (q[0] == '\\'): its code point and length, or 0 when it is
 * invalid or a lone surrogate (orjson refuses those; the Python path keeps them). */
static inline int
escape_at(const unsigned char *q, const unsigned char *end, Py_UCS4 *cp)
{
    if (end - q < 2)
        return 0;
    switch (q[1]) {
    case '"': *cp = '"'; return 2;
    case '\\': *cp = '\\'; return 2;
    case '/': *cp = '/'; return 2;
    case 'b': *cp = '\b'; return 2;
    case 'f': *cp = '\f'; return 2;
    case 'n': *cp = '\n'; return 2;
    case 'r': *cp = '\r'; return 2;
    case 't': *cp = '\t'; return 2;
    case 'u': break;
    default: return 0;
    }
    Py_UCS4 hi, lo;
    if (end - q < 6 || !hex4(q + 2, &hi))
        return 0;
    if (hi < 0xD800 || hi > 0xDFFF) {
        *cp = hi;
        return 6;
    }
    if (hi > 0xDBFF || end - q < 12 || q[6] != '\\' || q[7] != 'u' || !hex4(q + 8, &lo) || lo < 0xDC00 || lo > 0xDFFF)
        return 0;
    *cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
    return 12;
}

/* The first byte at or after q that a string scan must look at (a quote, a
 * backslash, a control byte, a byte >= 0x80), or end: sixteen bytes at a
 * time with SSE2 (x86-64 always has it), eight elsewhere. */
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#define ONES UINT64_C(0x0101010101010101)
#define HIGHS UINT64_C(0x8080808080808080)
static inline const unsigned char *
next_special(const unsigned char *q, const unsigned char *end)
{
#ifdef __SSE2__
    const __m128i quote = _mm_set1_epi8('"'), slash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
    while (end - q >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)q);
        /* signed: bytes >= 0x80 are negative, so "< 0x20" also catches them */
        __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, slash)),
                                   _mm_cmplt_epi8(v, space));
        int mask = _mm_movemask_epi8(hit);
        if (mask)
            return q + __builtin_ctz((unsigned)mask);
        q += 16;
    }
#endif
    while (end - q >= 8) {
        uint64_t x;
        memcpy(&x, q, 8);
        uint64_t dq = x ^ (ONES * '"'), bs = x ^ (ONES * '\\');
        uint64_t t = ((dq - ONES) & ~dq) | ((bs - ONES) & ~bs) | ((x - ONES * 0x20) & ~x) | x;
        if (t & HIGHS)
            break;
        q += 8;
    }
    while (q < end && *q != '"' && *q != '\\' && *q >= 0x20 && *q < 0x80)
        q++;
    return q;
}

/* What one pass over a string's bytes (q just past its opening quote) learns:
 * where it ends, its length in code points, its widest code point, whether it
 * holds an escape. 0, or -1 when the Python path must read the line. */
typedef struct {
    const unsigned char *close; /* the closing quote */
    Py_ssize_t chars;
    Py_UCS4 maxchar;
    int escaped;
} StrInfo;

static inline int
measure(const unsigned char *q, const unsigned char *end, StrInfo *info)
{
    Py_ssize_t fewer = 0; /* bytes minus code points so far */
    Py_UCS4 maxchar = 0x7F;
    int escaped = 0;
    const unsigned char *start = q;
    for (;;) {
        q = next_special(q, end);
        if (q >= end)
            return -1;
        unsigned char c = *q;
        if (c == '"')
            break;
        if (c < 0x20)
            return -1; /* a raw control character */
        if (c == '\\') {
            Py_UCS4 cp;
            int k = escape_at(q, end, &cp);
            if (k == 0)
                return -1;
            Py_UCS4 m = cp > 0xFFFF ? 0x10FFFF : cp > 0xFF ? 0xFFFF : cp > 0x7F ? 0xFF : 0x7F;
            if (m > maxchar)
                maxchar = m;
            fewer += k - 1;
            escaped = 1;
            q += k;
        } else if (c >= 0x80) {
            int k = utf8_seq(q, end);
            if (k == 0)
                return -1;
            Py_UCS4 m = k == 2 ? (c <= 0xC3 ? 0xFF : 0xFFFF) : k == 3 ? 0xFFFF : 0x10FFFF;
            if (m > maxchar)
                maxchar = m;
            fewer += k - 1;
            q += k;
        } else {
            q++;
        }
    }
    info->close = q;
    info->chars = (q - start) - fewer;
    info->maxchar = maxchar;
    info->escaped = escaped;
    return 0;
}

/* What a string's bytes tell as they are passed: code points fewer than
 * bytes, and the widest code point's storage class (0x7F, 0xFF, 0xFFFF,
 * 0x10FFFF), so its str is allocated once, at its final width. */
typedef struct {
    Py_ssize_t fewer;
    Py_UCS4 maxchar;
} Width;

static inline void
widen(Width *w, Py_UCS4 cp)
{
    Py_UCS4 m = cp > 0xFFFF ? 0x10FFFF : cp > 0xFF ? 0xFFFF : cp > 0x7F ? 0xFF : 0x7F;
    if (m > w->maxchar)
        w->maxchar = m;
}

/* From q to the first quote, backslash or control byte, checking the UTF-8
 * it passes; NULL when that is invalid (the Python path then reads the line). */
static inline const unsigned char *
plain_run(const unsigned char *q, const unsigned char *end, Width *w)
{
    for (;;) {
        q = next_special(q, end);
        if (q >= end || *q < 0x80)
            return q;
        int k = utf8_seq(q, end);
        if (k == 0)
            return NULL;
        unsigned char c = *q;
        widen(w, k == 2 ? (c <= 0xC3 ? 0xFF : 0x100) : k == 3 ? 0xFFFF : 0x10000);
        w->fewer += k - 1;
        q += k;
    }
}

static int
grow(State *st, Py_ssize_t need)
{
    if (need <= st->cap)
        return 0;
    Py_ssize_t cap = st->cap ? st->cap : 4096;
    while (cap < need)
        cap *= 2;
    unsigned char *s = PyMem_Realloc(st->scratch, (size_t)cap);
    if (s == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    st->scratch = s;
    st->cap = cap;
    return 0;
}

/* The first byte >= 0x80 at or after s, or e. */
static inline const unsigned char *
next_high(const unsigned char *s, const unsigned char *e)
{
#ifdef __SSE2__
    while (e - s >= 16) {
        int mask = _mm_movemask_epi8(_mm_loadu_si128((const __m128i *)s));
        if (mask)
            return s + __builtin_ctz((unsigned)mask);
        s += 16;
    }
#endif
    while (s < e && *s < 0x80)
        s++;
    return s;
}

/* Decode UTF-8 already checked by plain_run into out, one storage width per
 * instantiation; ASCII runs are widened in bulk (restrict: the loop vectorises). */
#define DECODE_INTO(NAME, T)                                                              \
    static void NAME(const unsigned char *s, const unsigned char *e, T *restrict out)    \
    {                                                                                     \
        while (s < e) {                                                                   \
            const unsigned char *restrict run = s;                                        \
            s = next_high(s, e);                                                          \
            Py_ssize_t n = s - run;                                                       \
            for (Py_ssize_t j = 0; j < n; j++)                                            \
                out[j] = run[j];                                                          \
            out += n;                                                                     \
            if (s >= e)                                                                   \
                break;                                                                    \
            unsigned char c = s[0];                                                       \
            if (c < 0xE0) {                                                               \
                *out++ = (T)(((Py_UCS4)(c & 0x1F) << 6) | (s[1] & 0x3F));                 \
                s += 2;                                                                   \
            } else if (c < 0xF0) {                                                        \
                *out++ = (T)(((Py_UCS4)(c & 0x0F) << 12) | ((Py_UCS4)(s[1] & 0x3F) << 6) | \
                             (s[2] & 0x3F));                                              \
                s += 3;                                                                   \
            } else {                                                                      \
                *out++ = (T)(((Py_UCS4)(c & 0x07) << 18) | ((Py_UCS4)(s[1] & 0x3F) << 12) | \
                             ((Py_UCS4)(s[2] & 0x3F) << 6) | (s[3] & 0x3F));              \
                s += 4;                                                                   \
            }                                                                             \
        }                                                                                 \
    }
DECODE_INTO(decode_ucs1, Py_UCS1)
DECODE_INTO(decode_ucs2, Py_UCS2)
DECODE_INTO(decode_ucs4, Py_UCS4)

/* The str of n bytes of checked UTF-8. */
static PyObject *
make_str(const unsigned char *s, Py_ssize_t n, const Width *w)
{
    PyObject *u = PyUnicode_New(n - w->fewer, w->maxchar);
    if (u == NULL)
        return NULL;
    if (w->maxchar == 0x7F)
        memcpy(PyUnicode_1BYTE_DATA(u), s, (size_t)n);
    else if (w->maxchar == 0xFF)
        decode_ucs1(s, s + n, PyUnicode_1BYTE_DATA(u));
    else if (w->maxchar == 0xFFFF)
        decode_ucs2(s, s + n, PyUnicode_2BYTE_DATA(u));
    else
        decode_ucs4(s, s + n, PyUnicode_4BYTE_DATA(u));
    return u;
}

/* A string value (st->p at its opening quote) as a str. */
static PyObject *
read_string(State *st)
{
    const unsigned char *start = ++st->p, *end = st->end;
    Width w = {0, 0x7F};
    const unsigned char *q = plain_run(start, end, &w);
    if (q == NULL)
        return FALLBACK(st);
    if (q < end && *q == '"') { /* no escape: decode in place */
        st->p = q + 1;
        return make_str(start, q - start, &w);
    }
    /* Unescape into scratch (never longer than the source). */
    Py_ssize_t len = 0;
    for (;;) {
        if (q >= end || *q < 0x20)
            return FALLBACK(st); /* unterminated, or a raw control character */
        if (grow(st, len + (q - start) + 4) < 0)
            return NULL;
        memcpy(st->scratch + len, start, (size_t)(q - start));
        len += q - start;
        if (*q == '"')
            break;
        Py_UCS4 cp;
        int k = escape_at(q, end, &cp);
        if (k == 0)
            return FALLBACK(st);
        unsigned char *o = st->scratch + len;
        widen(&w, cp);
        if (cp < 0x80) {
            o[0] = (unsigned char)cp;
            len += 1;
        } else if (cp < 0x800) {
            o[0] = 0xC0 | (cp >> 6);
            o[1] = 0x80 | (cp & 0x3F);
            len += 2;
            w.fewer += 1;
        } else if (cp < 0x10000) {
            o[0] = 0xE0 | (cp >> 12);
            o[1] = 0x80 | ((cp >> 6) & 0x3F);
            o[2] = 0x80 | (cp & 0x3F);
            len += 3;
            w.fewer += 2;
        } else {
            o[0] = 0xF0 | (cp >> 18);
            o[1] = 0x80 | ((cp >> 12) & 0x3F);
            o[2] = 0x80 | ((cp >> 6) & 0x3F);
            o[3] = 0x80 | (cp & 0x3F);
            len += 4;
            w.fewer += 3;
        }
        start = q + k;
        q = plain_run(start, end, &w);
        if (q == NULL)
            return FALLBACK(st);
    }
    st->p = q + 1;
    return make_str(st->scratch, len, &w);
}

/* Skip a string (st->p at its opening quote), validating it; 0 or -1 (fallback). */
static int
skip_string(State *st)
{
    StrInfo info;
    if (measure(st->p + 1, st->end, &info) < 0)
        return st->fallback = 1, -1;
    st->p = info.close + 1;
    return 0;
}

static int
skip_number(State *st)
{
    const unsigned char *q = st->p, *end = st->end;
    if (q < end && *q == '-')
        q++;
    if (q >= end)
        return st->fallback = 1, -1;
    if (*q == '0') {
        q++;
    } else if (*q >= '1' && *q <= '9') {
        while (q < end && *q >= '0' && *q <= '9')
            q++;
    } else {
        return st->fallback = 1, -1;
    }
    if (q < end && *q == '.') {
        q++;
        if (q >= end || *q < '0' || *q > '9')
            return st->fallback = 1, -1;
        while (q < end && *q >= '0' && *q <= '9')
            q++;
    }
    if (q < end && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < end && (*q == '+' || *q == '-'))
            q++;
        if (q >= end || *q < '0' || *q > '9')
            return st->fallback = 1, -1;
        while (q < end && *q >= '0' && *q <= '9')
            q++;
    }
    st->p = q;
    return 0;
}

static inline int
literal(State *st, const char *word, Py_ssize_t n)
{
    if (st->end - st->p < n || memcmp(st->p, word, (size_t)n) != 0)
        return 0;
    st->p += n;
    return 1;
}

static int
skip_value(State *st)
{
    skip_ws(st);
    if (st->p >= st->end)
        return st->fallback = 1, -1;
    unsigned char c = *st->p;
    if (c == '"')
        return skip_string(st);
    if (c == '{' || c == '[') {
        unsigned char close = c == '{' ? '}' : ']';
        if (++st->depth > MAX_DEPTH)
            return st->fallback = 1, -1;
        st->p++;
        skip_ws(st);
        if (st->p < st->end && *st->p == close) {
            st->p++;
            st->depth--;
            return 0;
        }
        for (;;) {
            if (c == '{') {
                skip_ws(st);
                if (st->p >= st->end || *st->p != '"' || skip_string(st) < 0)
                    return st->fallback = 1, -1;
                skip_ws(st);
                if (st->p >= st->end || *st->p != ':')
                    return st->fallback = 1, -1;
                st->p++;
            }
            if (skip_value(st) < 0)
                return -1;
            skip_ws(st);
            if (st->p < st->end && *st->p == ',') {
                st->p++;
                continue;
            }
            if (st->p < st->end && *st->p == close) {
                st->p++;
                st->depth--;
                return 0;
            }
            return st->fallback = 1, -1;
        }
    }
    if (literal(st, "true", 4) || literal(st, "false", 5) || literal(st, "null", 4))
        return 0;
    return skip_number(st);
}

static PyObject *read_value(State *st, const Node *node, int mode);

/* An object (st->p at "{"): every key when node is NULL, else only node's. */
static PyObject *
read_object(State *st, const Node *node)
{
    if (++st->depth > MAX_DEPTH)
        return FALLBACK(st);
    st->p++;
    PyObject *d = PyDict_New();
    if (d == NULL)
        return NULL;
    skip_ws(st);
    if (st->p < st->end && *st->p == '}') {
        st->p++;
        st->depth--;
        return d;
    }
    for (;;) {
        skip_ws(st);
        if (st->p >= st->end || *st->p != '"')
            goto fallback;
        PyObject *key = NULL, *value;
        const Field *field = NULL;
        if (node == NULL) {
            key = read_string(st);
            if (key == NULL)
                goto fail;
        } else {
            /* Only a plain ASCII key can be compared by its bytes. */
            const unsigned char *k = st->p + 1, *q = k;
            while (q < st->end && *q != '"' && *q != '\\' && *q >= 0x20 && *q < 0x80)
                q++;
            if (q >= st->end || *q != '"')
                goto fallback;
            for (Py_ssize_t i = 0; i < node->n; i++) {
                const Field *f = &node->fields[i];
                if (f->len == q - k && memcmp(f->name, k, (size_t)f->len) == 0) {
                    field = f;
                    break;
                }
            }
            st->p = q + 1;
        }
        skip_ws(st);
        if (st->p >= st->end || *st->p != ':') {
            Py_XDECREF(key);
            goto fallback;
        }
        st->p++;
        if (node != NULL && field == NULL) {
            if (skip_value(st) < 0)
                goto fail;
        } else {
            if (field != NULL)
                value = read_value(st, field->child, field->mode);
            else
                value = read_value(st, NULL, KEEP);
            if (value == NULL) {
                Py_XDECREF(key);
                goto fail;
            }
            int r = PyDict_SetItem(d, field != NULL ? field->key : key, value);
            Py_DECREF(value);
            Py_XDECREF(key);
            if (r < 0)
                goto fail;
        }
        skip_ws(st);
        if (st->p < st->end && *st->p == ',') {
            st->p++;
            continue;
        }
        if (st->p < st->end && *st->p == '}') {
            st->p++;
            st->depth--;
            return d;
        }
        goto fallback;
    }
fallback:
    st->fallback = 1;
fail:
    Py_DECREF(d);
    return NULL;
}

/* An array (st->p at "["), each element read by (node, mode). */
static PyObject *
read_array(State *st, const Node *node, int mode)
{
    if (++st->depth > MAX_DEPTH)
        return FALLBACK(st);
    st->p++;
    PyObject *list = PyList_New(0);
    if (list == NULL)
        return NULL;
    skip_ws(st);
    if (st->p < st->end && *st->p == ']') {
        st->p++;
        st->depth--;
        return list;
    }
    for (;;) {
        PyObject *item = read_value(st, node, mode);
        if (item == NULL)
            goto fail;
        int r = PyList_Append(list, item);
        Py_DECREF(item);
        if (r < 0)
            goto fail;
        skip_ws(st);
        if (st->p < st->end && *st->p == ',') {
            st->p++;
            continue;
        }
        if (st->p < st->end && *st->p == ']') {
            st->p++;
            st->depth--;
            return list;
        }
        st->fallback = 1;
        goto fail;
    }
fail:
    Py_DECREF(list);
    return NULL;
}

/* A value: KEEP reads it whole; PRUNE reads an object by node; EACH reads an
 * array's elements by node (any other value is read whole). */
static PyObject *
read_value(State *st, const Node *node, int mode)
{
    skip_ws(st);
    if (st->p >= st->end)
        return FALLBACK(st);
    unsigned char c = *st->p;
    if (c == '"')
        return read_string(st);
    if (c == '{')
        return read_object(st, mode == PRUNE ? node : NULL);
    if (c == '[')
        return mode == EACH ? read_array(st, node, PRUNE) : read_array(st, NULL, KEEP);
    if (literal(st, "true", 4))
        Py_RETURN_TRUE;
    if (literal(st, "false", 5))
        Py_RETURN_FALSE;
    if (literal(st, "null", 4))
        Py_RETURN_NONE;
    return FALLBACK(st); /* a number kept: orjson's and json's readings are Python's to give */
}

/* ---- lines ------------------------------------------------------------ */

static inline int
is_strip_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x0B || c == 0x0C;
}

/* One line (without its "\n") as an item, or NULL with no exception for a blank line. */
static PyObject *
line_item(State *st, const unsigned char *a, Py_ssize_t n, Py_ssize_t number, Py_ssize_t max_line_bytes,
          const Node *root, PyTypeObject *line_type)
{
    if (n > max_line_bytes)
        return Py_BuildValue("(nO)", number, Py_None);
    int bom = n >= 3 && a[0] == 0xEF && a[1] == 0xBB && a[2] == 0xBF;
    const unsigned char *body = a + (bom ? 3 : 0), *end = a + n;
    const unsigned char *q = body;
    while (q < end && is_strip_space(*q))
        q++;
    if (q == end)
        return NULL; /* blank: skipped silently */
    PyObject *value = NULL;
    st->p = body; /* JSON's white space only: a \v or \f before the value is not JSON */
    st->end = end;
    st->depth = 0;
    st->fallback = 0;
    skip_ws(st);
    if (st->p < end && *st->p == '{') {
        value = read_object(st, root);
        if (value == NULL && !st->fallback)
            return NULL; /* a real error (memory): the caller sees the exception */
        if (value != NULL) {
            skip_ws(st);
            if (st->p != end)
                Py_CLEAR(value);
        }
    }
    if (value == NULL)
        return Py_BuildValue("(ny#)", number, (const char *)a, n);
    PyObject *item = line_type->tp_alloc(line_type, 3);
    if (item == NULL) {
        Py_DECREF(value);
        return NULL;
    }
    PyObject *num = PyLong_FromSsize_t(number);
    if (num == NULL) {
        Py_DECREF(value);
        Py_DECREF(item);
        return NULL;
    }
    PyTuple_SET_ITEM(item, 0, num);
    PyTuple_SET_ITEM(item, 1, value);
    PyTuple_SET_ITEM(item, 2, Py_NewRef(bom ? Py_True : Py_False));
    return item;
}

static PyObject *
scan(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer buf;
    Py_ssize_t start, stop, number, max_line_bytes;
    PyObject *capsule;
    PyTypeObject *line_type;
    if (!PyArg_ParseTuple(args, "y*nnnnOO!:scan", &buf, &start, &stop, &number, &max_line_bytes, &capsule,
                          &PyType_Type, &line_type))
        return NULL;
    PyObject *items = NULL;
    Node *root = PyCapsule_GetPointer(capsule, "citeledger._scan.schema");
    if (root == NULL)
        goto done;
    /* A tuple subclass without slots of its own (a NamedTuple) is allocated and filled as a tuple. */
    if (!PyType_IsSubtype(line_type, &PyTuple_Type) || line_type->tp_basicsize != PyTuple_Type.tp_basicsize) {
        PyErr_SetString(PyExc_TypeError, "scan(): line_type must be a NamedTuple of three fields");
        goto done;
    }
    if (start < 0 || stop > buf.len || start > stop) {
        PyErr_SetString(PyExc_ValueError, "scan(): start and stop out of range");
        goto done;
    }
    items = PyList_New(0);
    if (items == NULL)
        goto done;
    State st = {0};
    Py_ssize_t handed_back = 0;
    const unsigned char *data = buf.buf, *p = data + start, *end = data + stop;
    while (p < end) {
        const unsigned char *nl = memchr(p, '\n', (size_t)(end - p));
        const unsigned char *line_end = nl ? nl : end;
        number++;
        PyObject *item = line_item(&st, p, line_end - p, number, max_line_bytes, root, line_type);
        if (item == NULL && PyErr_Occurred()) {
            Py_CLEAR(items);
            break;
        }
        if (item != NULL) {
            handed_back += Py_TYPE(item) != line_type;
            int r = PyList_Append(items, item);
            Py_DECREF(item);
            if (r < 0) {
                Py_CLEAR(items);
                break;
            }
        }
        p = nl ? nl + 1 : end;
    }
    PyMem_Free(st.scratch);
done:
    PyBuffer_Release(&buf);
    if (items == NULL)
        return NULL;
    return Py_BuildValue("(Nnn)", items, number, handed_back);
}

static PyMethodDef methods[] = {
    {"schema", schema, METH_O, "Compile a key schema {key: None | spec | [spec]}."},
    {"scan", scan, METH_VARARGS, "(items, number) of the lines of buf[start:stop], decoded by a key schema."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_scan", NULL, -1, methods};

PyMODINIT_FUNC
PyInit__scan(void)
{
    return PyModule_Create(&module);
}
