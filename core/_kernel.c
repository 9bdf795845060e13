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
 * What the splitter runs (core/sections/splitter.py), making the records
 * themselves (bind: the attrs classes, whose slots they fill):
 *   header(path, suffix, symbols) -> Header    header.py's _native, one call
 *   cut_headers(text, trailer, headers, symbols) -> (Headers, packed spans)
 *       cut, with one Header per distinct header line of the scoring call
 *   sections(text, heads, spans, meta, unit) -> (Section, ...)
 *       the records of a cut, sized in the unit without slicing; each
 *       Section's text is sliced from the response when first read
 *
 * The item pattern's greedy class cannot contain "(", so a match starting
 * inside a run of name characters reaches the run's end, and a token that
 * starts a run is the only start that can match (the grammar's argument,
 * header.lark); tests/test_kernel.py checks all of it against lark.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <string.h>
#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

/* How many of u[a:b] are >= U+0080, plus how many are >= U+0800: the bytes
 * UTF-8 adds to one a character in the BMP. SSE2: 16-bit lane counters
 * (saturating subtraction tests an unsigned bound), flushed before they
 * could overflow; the compiler's own vectorisation widens to 64 bits. */
static Py_ssize_t
utf8_extra2(const Py_UCS2 *u, Py_ssize_t a, Py_ssize_t b)
{
    Py_ssize_t total = 0, i = a;
#if defined(__SSE2__)
    const __m128i lo = _mm_set1_epi16(0x7F), hi = _mm_set1_epi16(0x7FF), zero = _mm_setzero_si128(),
                  ones = _mm_set1_epi16(1);
    while (i + 8 <= b) {
        __m128i acc = zero; /* per lane: characters below each bound, at most 2 * 8192 */
        Py_ssize_t stop = i + 8 * 8192 < b ? i + 8 * 8192 : b;
        for (; i + 8 <= stop; i += 8) {
            __m128i v = _mm_loadu_si128((const __m128i *)(u + i));
            acc = _mm_sub_epi16(acc, _mm_cmpeq_epi16(_mm_subs_epu16(v, lo), zero));
            acc = _mm_sub_epi16(acc, _mm_cmpeq_epi16(_mm_subs_epu16(v, hi), zero));
        }
        __m128i wide = _mm_madd_epi16(acc, ones); /* four 32-bit sums */
        int32_t parts[4];
        _mm_storeu_si128((__m128i *)parts, wide);
        total -= (Py_ssize_t)parts[0] + parts[1] + parts[2] + parts[3];
    }
    total += 2 * (i - a); /* counted below a bound: subtracted from two each */
#endif
    for (; i < b; i++)
        total += (u[i] >= 0x80) + (u[i] >= 0x800);
    return total;
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
        total += utf8_extra2(PyUnicode_2BYTE_DATA(arg), 0, n);
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

/* ---- Records made here (bind): attrs frozen slots classes whose slots are
 * filled directly, as their generated __init__ would fill them (no
 * validators, converters or post-init: core/sections/__init__.py checks
 * that before binding). Calling the class costs more than the parse. */

#define MAX_SLOTS 32
typedef struct {
    PyTypeObject *type;
    int n;
    Py_ssize_t off[MAX_SLOTS];
} Rec;

static Rec SYMBOL, RENDER_TAG, HEADER, SECTION;
enum { SYM_NAME, SYM_KIND, SYM_N };
enum { TAG_TAG, TAG_NAMES, TAG_N };
enum { H_PATH, H_SUFFIX, H_SYMBOLS, H_MORE, H_TAGS, H_HASH, H_N };
enum { S_PATH, S_HEADER, S_CHARS, S_TEXT, S_META, S_SOURCE, S_START, S_END, S_N };

static int
bind_rec(Rec *r, PyObject *cls, PyObject *slots, int n)
{
    if (!PyType_Check(cls) || !PyTuple_Check(slots) || PyTuple_GET_SIZE(slots) != n || n > MAX_SLOTS) {
        PyErr_Format(PyExc_TypeError, "bind: a class and a tuple of %d slot descriptors", n);
        return -1;
    }
    Rec made = {(PyTypeObject *)cls, n, {0}};
    for (int i = 0; i < n; i++) {
        PyObject *d = PyTuple_GET_ITEM(slots, i);
        if (!Py_IS_TYPE(d, &PyMemberDescr_Type)) {
            PyErr_SetString(PyExc_TypeError, "bind: not a slot (member descriptor)");
            return -1;
        }
        PyMemberDef *m = ((PyMemberDescrObject *)d)->d_member;
        if (m->type != T_OBJECT_EX || (m->flags & READONLY) ||
            !PyType_IsSubtype(made.type, PyDescr_TYPE(d))) {
            PyErr_SetString(PyExc_TypeError, "bind: not a writable object slot of the class");
            return -1;
        }
        made.off[i] = m->offset;
    }
    Py_INCREF(cls);
    Py_XDECREF((PyObject *)r->type);
    *r = made;
    return 0;
}

static inline PyObject **
slot(PyObject *o, const Rec *r, int i)
{
    return (PyObject **)((char *)o + r->off[i]);
}

/* A record with slot i holding vals[i] (a new reference each; NULL: left unset). */
static PyObject *
rec_new(const Rec *r, PyObject *const *vals)
{
    if (r->type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_kernel: records not bound (citeledger.core.sections binds them)");
        return NULL;
    }
    PyObject *o = r->type->tp_alloc(r->type, 0);
    if (o == NULL)
        return NULL;
    for (int i = 0; i < r->n; i++)
        if (vals[i] != NULL)
            *slot(o, r, i) = Py_NewRef(vals[i]);
    return o;
}

/* Maker(cls, slots, fields): a fast constructor of a record class the
 * kernel can fill (see bind). Called with the `fields` first slots' values,
 * positionally (no defaults); any slots after those are set to None. The
 * accountant makes its score records through it: their attrs __init__
 * costs several times the work of scoring a file. */
typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    Rec rec;
    int fields;
} Maker;

static PyObject *
maker_call(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Maker *m = (Maker *)self;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if ((kwnames != NULL && PyTuple_GET_SIZE(kwnames) > 0) || n != m->fields) {
        PyErr_Format(PyExc_TypeError, "%s maker takes exactly %d positional arguments", m->rec.type->tp_name,
                     m->fields);
        return NULL;
    }
    PyObject *vals[MAX_SLOTS];
    for (int i = 0; i < m->rec.n; i++)
        vals[i] = i < n ? args[i] : Py_None;
    return rec_new(&m->rec, vals);
}

static PyObject *
maker_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *cls, *slots;
    int fields;
    if (kwds != NULL && PyDict_GET_SIZE(kwds) > 0) {
        PyErr_SetString(PyExc_TypeError, "Maker(cls, slots, fields)");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "OO!i:Maker", &cls, &PyTuple_Type, &slots, &fields))
        return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(slots);
    if (fields < 0 || fields > n) {
        PyErr_SetString(PyExc_ValueError, "Maker: fields must be at most the slots");
        return NULL;
    }
    Maker *m = (Maker *)type->tp_alloc(type, 0);
    if (m == NULL)
        return NULL;
    if (bind_rec(&m->rec, cls, slots, (int)n) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    m->fields = fields;
    m->vectorcall = maker_call;
    return (PyObject *)m;
}

static void
maker_dealloc(PyObject *self)
{
    Py_XDECREF((PyObject *)((Maker *)self)->rec.type);
    Py_TYPE(self)->tp_free(self);
}

static PyTypeObject MakerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "citeledger.core._kernel.Maker",
    .tp_basicsize = sizeof(Maker),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_vectorcall_offset = offsetof(Maker, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_new = maker_new,
    .tp_dealloc = maker_dealloc,
    .tp_doc = "Maker(cls, slots, fields): a fast positional constructor of a record class.",
};

/* bind(Symbol, slots, RenderTag, slots, Header, slots, Section, slots) */
static PyObject *
bind(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *c[4], *d[4];
    if (!PyArg_ParseTuple(args, "OOOOOOOO:bind", &c[0], &d[0], &c[1], &d[1], &c[2], &d[2], &c[3], &d[3]))
        return NULL;
    if (bind_rec(&SYMBOL, c[0], d[0], SYM_N) < 0 || bind_rec(&RENDER_TAG, c[1], d[1], TAG_N) < 0 ||
        bind_rec(&HEADER, c[2], d[2], H_N) < 0 || bind_rec(&SECTION, c[3], d[3], S_N) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* A growable array of Py_ssize_t. */
typedef struct {
    Py_ssize_t *v;
    Py_ssize_t len, cap;
} Ints;

static int
ints_push(Ints *a, Py_ssize_t x)
{
    if (a->len == a->cap) {
        Py_ssize_t cap = a->cap ? 2 * a->cap : 48;
        Py_ssize_t *v = PyMem_Realloc(a->v, (size_t)cap * sizeof(Py_ssize_t));
        if (v == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        a->v = v;
        a->cap = cap;
    }
    a->v[a->len++] = x;
    return 0;
}

/* One header suffix s[0:n] read as header.lark reads it (the comment at the top). */
typedef struct {
    int ok;
    PyObject *items; /* (name, kind) tuples, or Symbol records when `symbols` is given */
    PyObject *tags;  /* tag words */
    Ints bare;       /* (start, end) of each WORD token among the names: made str only if a tag needs them */
    Py_ssize_t more_at, more_end; /* the digits of the last count among the names; more_at -1: none */
} Scan;

static void
scan_clear(Scan *sc)
{
    Py_CLEAR(sc->items);
    Py_CLEAR(sc->tags);
    PyMem_Free(sc->bare.v);
    sc->bare.v = NULL;
    sc->bare.len = sc->bare.cap = 0;
}

/* The bare names as a list of str. */
static PyObject *
scan_bare(Scan *sc, PyObject *arg)
{
    PyObject *out = PyList_New(sc->bare.len / 2);
    for (Py_ssize_t j = 0; out != NULL && j < sc->bare.len / 2; j++) {
        PyObject *x = PyUnicode_Substring(arg, sc->bare.v[2 * j], sc->bare.v[2 * j + 1]);
        if (x == NULL)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, j, x);
    }
    return out;
}

/* Table(): records of one scoring call keyed by the text they were made
 * from, looked up from the response's own characters: the Symbols, one per
 * item text ("name(kind)"), or the Headers, one per header line. A dict
 * would need the text as a str first (one allocation and one hash of it
 * per item, most of a header's cost). Open addressing on a 64-bit FNV-1a
 * hash of the code points; a hit is checked against the record's fields.
 * Made per scoring call (splitter.Cuts), like the dicts it replaces. */
typedef struct {
    uint64_t hash;
    PyObject *sym; /* NULL: empty */
} Entry;

typedef struct {
    PyObject_HEAD
    Entry *slots;
    Py_ssize_t cap, used; /* cap: a power of two */
    int holds;            /* what its records are, fixed by its first use: HOLDS_* */
} Table;

enum { HOLDS_NOTHING_YET, HOLDS_SYMBOLS, HOLDS_HEADERS };

/* 0 when t holds (or may start holding) records of `what`; else TypeError:
 * its entries are read through that record's slots. */
static int
table_holds(Table *t, int what)
{
    if (t->holds == HOLDS_NOTHING_YET)
        t->holds = what;
    if (t->holds == what)
        return 0;
    PyErr_SetString(PyExc_TypeError, "a Table holds either Symbols or Headers, not both");
    return -1;
}

static PyTypeObject TableType;

static void
table_dealloc(PyObject *self)
{
    Table *t = (Table *)self;
    for (Py_ssize_t j = 0; j < t->cap; j++)
        Py_XDECREF(t->slots[j].sym);
    PyMem_Free(t->slots);
    Py_TYPE(self)->tp_free(self);
}

static PyObject *
table_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    if (PyTuple_GET_SIZE(args) > 0 || (kwds != NULL && PyDict_GET_SIZE(kwds) > 0)) {
        PyErr_SetString(PyExc_TypeError, "Table() takes no arguments");
        return NULL;
    }
    Table *t = (Table *)type->tp_alloc(type, 0);
    if (t == NULL)
        return NULL;
    t->cap = 64;
    t->used = 0;
    t->slots = PyMem_Calloc((size_t)t->cap, sizeof(Entry));
    if (t->slots == NULL) {
        Py_DECREF(t);
        return PyErr_NoMemory();
    }
    return (PyObject *)t;
}

static Py_ssize_t
table_len(PyObject *self)
{
    return ((Table *)self)->used;
}

static PySequenceMethods table_as_sequence = {.sq_length = table_len};

static PyTypeObject TableType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "citeledger.core._kernel.Table",
    .tp_basicsize = sizeof(Table),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = table_new,
    .tp_dealloc = table_dealloc,
    .tp_as_sequence = &table_as_sequence,
    .tp_doc = "Records of one scoring call (Symbols or Headers) keyed by their text, looked up without making it.",
};

/* Whether str o holds exactly the code points s[a:b]. */
static int
same_chars(PyObject *o, int kind, const void *d, Py_ssize_t a, Py_ssize_t b)
{
    if (PyUnicode_GET_LENGTH(o) != b - a)
        return 0;
    int ok = PyUnicode_KIND(o);
    const void *od = PyUnicode_DATA(o);
    if (ok == kind)
        return memcmp(od, (const char *)d + a * kind, (size_t)((b - a) * kind)) == 0;
    if (ok == PyUnicode_1BYTE_KIND && kind == PyUnicode_2BYTE_KIND) { /* an ASCII name in a "—" response */
        const Py_UCS1 *x = (const Py_UCS1 *)od;
        const Py_UCS2 *y = (const Py_UCS2 *)d + a;
        for (Py_ssize_t j = 0; j < b - a; j++)
            if (x[j] != y[j])
                return 0;
        return 1;
    }
    for (Py_ssize_t j = a; j < b; j++)
        if (PyUnicode_READ(ok, od, j - a) != PyUnicode_READ(kind, d, j))
            return 0;
    return 1;
}

static int
table_grow(Table *t)
{
    Py_ssize_t cap = 2 * t->cap;
    Entry *slots = PyMem_Calloc((size_t)cap, sizeof(Entry));
    if (slots == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t j = 0; j < t->cap; j++) {
        if (t->slots[j].sym == NULL)
            continue;
        Py_ssize_t at = (Py_ssize_t)(t->slots[j].hash & (uint64_t)(cap - 1));
        while (slots[at].sym != NULL)
            at = (at + 1) & (cap - 1);
        slots[at] = t->slots[j];
    }
    PyMem_Free(t->slots);
    t->slots = slots;
    t->cap = cap;
    return 0;
}

/* FNV-1a over the code points d[a:b] (equal texts hash alike whatever
 * their storage width): one typed loop per width. */
static inline uint64_t
fnv_from(uint64_t h, int kind, const void *d, Py_ssize_t a, Py_ssize_t b)
{
    if (kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *u = (const Py_UCS1 *)d;
        for (Py_ssize_t j = a; j < b; j++)
            h = (h ^ u[j]) * 1099511628211ULL;
    } else if (kind == PyUnicode_2BYTE_KIND) {
        const Py_UCS2 *u = (const Py_UCS2 *)d;
        for (Py_ssize_t j = a; j < b; j++)
            h = (h ^ u[j]) * 1099511628211ULL;
    } else {
        const Py_UCS4 *u = (const Py_UCS4 *)d;
        for (Py_ssize_t j = a; j < b; j++)
            h = (h ^ u[j]) * 1099511628211ULL;
    }
    return h;
}

static inline uint64_t
fnv(int kind, const void *d, Py_ssize_t a, Py_ssize_t b)
{
    return fnv_from(1469598103934665603ULL, kind, d, a, b);
}

/* Where a record of hash h whose two fields are d[a1:b1] and d[a2:b2]
 * (a Rec's slots f1 and f2) is in t, or the empty entry to put it in. */
static Entry *
table_probe(Table *t, uint64_t h, const Rec *r, int f1, int f2, int kind, const void *d, Py_ssize_t a1,
            Py_ssize_t b1, Py_ssize_t a2, Py_ssize_t b2)
{
    Py_ssize_t at = (Py_ssize_t)(h & (uint64_t)(t->cap - 1));
    for (; t->slots[at].sym != NULL; at = (at + 1) & (t->cap - 1)) {
        PyObject *o = t->slots[at].sym;
        if (t->slots[at].hash == h && same_chars(*slot(o, r, f1), kind, d, a1, b1) &&
            same_chars(*slot(o, r, f2), kind, d, a2, b2))
            break;
    }
    return &t->slots[at];
}

/* Put o (a new reference taken) in the empty entry e of hash h. */
static int
table_put(Table *t, Entry *e, uint64_t h, PyObject *o)
{
    e->hash = h;
    e->sym = Py_NewRef(o);
    return ++t->used * 2 > t->cap ? table_grow(t) : 0;
}

/* The Symbol of item s[i:k+1] (name s[i:end], kind s[end+1:k]), made once
 * per item text of the scoring call (a Table, or a dict keyed by the
 * item's text): headers of one call repeat their items. */
static PyObject *
symbol_of(PyObject *s, Py_ssize_t i, Py_ssize_t end, Py_ssize_t k, PyObject *memo)
{
    if (Py_IS_TYPE(memo, &TableType)) {
        Table *t = (Table *)memo;
        if (table_holds(t, HOLDS_SYMBOLS) < 0)
            return NULL;
        int kind = PyUnicode_KIND(s);
        const void *d = PyUnicode_DATA(s);
        uint64_t h = fnv(kind, d, i, k + 1);
        Entry *e = table_probe(t, h, &SYMBOL, SYM_NAME, SYM_KIND, kind, d, i, end, end + 1, k);
        if (e->sym != NULL)
            return Py_NewRef(e->sym);
        PyObject *vals[SYM_N] = {PyUnicode_Substring(s, i, end), PyUnicode_Substring(s, end + 1, k)};
        PyObject *sym = vals[0] && vals[1] ? rec_new(&SYMBOL, vals) : NULL;
        Py_XDECREF(vals[0]);
        Py_XDECREF(vals[1]);
        if (sym != NULL && table_put(t, e, h, sym) < 0)
            Py_CLEAR(sym);
        return sym;
    }
    PyObject *token = PyUnicode_Substring(s, i, k + 1);
    if (token == NULL)
        return NULL;
    PyObject *sym = PyDict_GetItemWithError(memo, token);
    if (sym != NULL) {
        Py_DECREF(token);
        return Py_NewRef(sym);
    }
    if (PyErr_Occurred()) {
        Py_DECREF(token);
        return NULL;
    }
    PyObject *vals[SYM_N] = {PyUnicode_Substring(s, i, end), PyUnicode_Substring(s, end + 1, k)};
    sym = vals[0] && vals[1] ? rec_new(&SYMBOL, vals) : NULL;
    Py_XDECREF(vals[0]);
    Py_XDECREF(vals[1]);
    if (sym != NULL && PyDict_SetItem(memo, token, sym) < 0)
        Py_CLEAR(sym);
    Py_DECREF(token);
    return sym;
}

/* A Symbol memo: a dict or a Table; 0, or -1 with TypeError. */
static int
check_memo(PyObject *memo)
{
    if (PyDict_Check(memo) || Py_IS_TYPE(memo, &TableType))
        return 0;
    PyErr_SetString(PyExc_TypeError, "symbols must be a dict or a Table");
    return -1;
}

/* 0 on success (sc filled), -1 with an exception. `symbols`: NULL for
 * (name, kind) tuples, else the memo of Symbol records. */
static int
scan_suffix(PyObject *arg, PyObject *symbols, Scan *sc)
{
    int kind = PyUnicode_KIND(arg);
    const void *d = PyUnicode_DATA(arg);
    Py_ssize_t n = PyUnicode_GET_LENGTH(arg);
    sc->items = PyList_New(0);
    sc->tags = PyList_New(0);
    sc->bare = (Ints){NULL, 0, 0};
    sc->more_at = sc->more_end = -1;
    if (sc->items == NULL || sc->tags == NULL)
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
                    PyObject *item = symbols != NULL
                                         ? symbol_of(arg, i, end, k, symbols)
                                         : Py_BuildValue("(NN)", PyUnicode_Substring(arg, i, end),
                                                         PyUnicode_Substring(arg, end + 1, k));
                    if (item == NULL || PyList_Append(sc->items, item) < 0) {
                        Py_XDECREF(item);
                        goto error;
                    }
                    Py_DECREF(item);
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
                    if (append_slice(sc->tags, arg, i, t) < 0)
                        goto error;
                    depth++;
                    prev = AFTER_TAG_OPEN;
                    i = t + 2;
                    continue;
                }
            }
            /* WORD: a bare name when it stands in the names themselves */
            if (in_names && depth == 0 && (ints_push(&sc->bare, i) < 0 || ints_push(&sc->bare, end) < 0))
                goto error;
            prev = AFTER_PIECE;
            i = end;
            continue;
        }
        if (c == '+') {
            Py_ssize_t e = more_at(kind, d, n, i);
            if (e >= 0) {
                if (in_names && depth == 0) {
                    sc->more_at = i + 1;
                    sc->more_end = e - 5;
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
    sc->ok = ok;
    return 0;
error:
    scan_clear(sc);
    return -1;
}

/* The count of a scan's last `+N more`, or None (a new reference): the
 * digits read here when they fit in 18, else by PyLong (any size). */
static PyObject *
scan_count(Scan *sc, PyObject *arg)
{
    if (sc->more_at < 0)
        return Py_NewRef(Py_None);
    if (sc->more_end - sc->more_at <= 18) {
        int kind = PyUnicode_KIND(arg);
        const void *d = PyUnicode_DATA(arg);
        long long x = 0;
        for (Py_ssize_t j = sc->more_at; j < sc->more_end; j++)
            x = 10 * x + (long long)(PyUnicode_READ(kind, d, j) - '0');
        return PyLong_FromLongLong(x);
    }
    PyObject *digits = PyUnicode_Substring(arg, sc->more_at, sc->more_end);
    if (digits == NULL)
        return NULL;
    PyObject *out = PyLong_FromUnicodeObject(digits, 10);
    Py_DECREF(digits);
    return out;
}

static PyObject *
header_parse(PyObject *self, PyObject *arg)
{
    (void)self;
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "header_parse() needs a str");
        return NULL;
    }
    Scan sc;
    if (scan_suffix(arg, NULL, &sc) < 0)
        return NULL;
    PyObject *count = scan_count(&sc, arg), *bare = scan_bare(&sc, arg), *out = NULL;
    if (count != NULL && bare != NULL)
        out = Py_BuildValue("(OOOOO)", sc.ok ? Py_True : Py_False, sc.items, count, sc.tags, bare);
    Py_XDECREF(count);
    Py_XDECREF(bare);
    scan_clear(&sc);
    return out;
}

/* The Header record of a header line (what header.py's _native builds from header_parse). */
static PyObject *
make_header(PyObject *path, PyObject *suffix, PyObject *symbols)
{
    Scan sc;
    if (scan_suffix(suffix, symbols, &sc) < 0)
        return NULL;
    PyObject *out = NULL, *syms = NULL, *more = NULL, *tags = NULL, *bare = NULL;
    syms = PyList_AsTuple(sc.items);
    if (syms == NULL)
        goto done;
    if (!sc.ok) { /* unstructured: the symbols only */
        more = Py_NewRef(Py_None);
        tags = PyTuple_New(0);
    } else {
        more = scan_count(&sc, suffix);
        Py_ssize_t nt = PyList_GET_SIZE(sc.tags);
        tags = PyTuple_New(nt);
        if (more == NULL || tags == NULL)
            goto done;
        if (nt > 0) { /* a render tag lists the bare names before the first "·" */
            PyObject *names = scan_bare(&sc, suffix);
            bare = names != NULL ? PyList_AsTuple(names) : NULL;
            Py_XDECREF(names);
            if (bare == NULL)
                goto done;
            for (Py_ssize_t t = 0; t < nt; t++) {
                PyObject *vals[TAG_N] = {PyList_GET_ITEM(sc.tags, t), bare};
                PyObject *tag = rec_new(&RENDER_TAG, vals);
                if (tag == NULL)
                    goto done;
                PyTuple_SET_ITEM(tags, t, tag);
            }
        }
    }
    if (more == NULL || tags == NULL)
        goto done;
    PyObject *vals[H_N] = {path, suffix, syms, more, tags, Py_None}; /* attrs' hash cache starts as None */
    out = rec_new(&HEADER, vals);
done:
    Py_XDECREF(syms);
    Py_XDECREF(more);
    Py_XDECREF(tags);
    Py_XDECREF(bare);
    scan_clear(&sc);
    return out;
}

/* header(path, suffix, symbols) -> Header: header.py's _native, as one call. */
static PyObject *
header(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *path, *suffix, *symbols;
    if (!PyArg_ParseTuple(args, "UUO:header", &path, &suffix, &symbols) || check_memo(symbols) < 0)
        return NULL;
    return make_header(path, suffix, symbols);
}

static inline int line_end(Py_UCS4 c) { return c == '\n' || c == '\r' || c == 0x2028 || c == 0x2029; }

/* The first "**`" in d[from:n] (where a header can start), or -1. Most
 * responses are stored two bytes a character (a "—" in a header); a loop
 * over them, or memchr for '*' (code is full of stars), costs several times
 * the memory pass this is with SSE2: three shifted loads, compared at once. */
/* The first c0 c1 c2 starting in u[i:i+len] (8 UCS2 or 16 UCS1 starts a
 * step, three shifted loads compared at once), or -1. */
#if defined(__SSE2__)
static inline Py_ssize_t
three_in2(const Py_UCS2 *u, Py_ssize_t i, Py_ssize_t len, int c0, int c1, int c2)
{
    const __m128i x0 = _mm_set1_epi16(c0), x1 = _mm_set1_epi16(c1), x2 = _mm_set1_epi16(c2);
    for (Py_ssize_t j = i; j < i + len; j += 8) {
        __m128i a = _mm_loadu_si128((const __m128i *)(u + j));
        __m128i b = _mm_loadu_si128((const __m128i *)(u + j + 1));
        __m128i c = _mm_loadu_si128((const __m128i *)(u + j + 2));
        int mask = _mm_movemask_epi8(
            _mm_and_si128(_mm_and_si128(_mm_cmpeq_epi16(a, x0), _mm_cmpeq_epi16(b, x1)), _mm_cmpeq_epi16(c, x2)));
        if (mask)
            return j + (__builtin_ctz((unsigned)mask) >> 1);
    }
    return -1;
}

static inline Py_ssize_t
three_in1(const Py_UCS1 *u, Py_ssize_t i, Py_ssize_t len, int c0, int c1, int c2)
{
    const __m128i x0 = _mm_set1_epi8((char)c0), x1 = _mm_set1_epi8((char)c1), x2 = _mm_set1_epi8((char)c2);
    for (Py_ssize_t j = i; j < i + len; j += 16) {
        __m128i a = _mm_loadu_si128((const __m128i *)(u + j));
        __m128i b = _mm_loadu_si128((const __m128i *)(u + j + 1));
        __m128i c = _mm_loadu_si128((const __m128i *)(u + j + 2));
        int mask = _mm_movemask_epi8(
            _mm_and_si128(_mm_and_si128(_mm_cmpeq_epi8(a, x0), _mm_cmpeq_epi8(b, x1)), _mm_cmpeq_epi8(c, x2)));
        if (mask)
            return j + __builtin_ctz((unsigned)mask);
    }
    return -1;
}
#endif

/* The first c0 c1 c2 (ASCII) in d[from:n], or -1. Most responses are
 * stored two bytes a character (a "—" in a header); a loop over them, or
 * memchr for one of the characters (code is full of stars and line ends),
 * costs several times a pass over the memory. With SSE2: 64 bytes a step
 * are tested for any c1 (for "**`", about one step in six has a '*'), and
 * only those steps for the three. */
static Py_ssize_t
find3(int kind, const void *d, Py_ssize_t from, Py_ssize_t n, int c0, int c1, int c2)
{
    Py_ssize_t i = from;
#if defined(__SSE2__)
    if (kind == PyUnicode_2BYTE_KIND) {
        const Py_UCS2 *u = (const Py_UCS2 *)d;
        const __m128i x1 = _mm_set1_epi16(c1);
        for (; i + 32 + 2 <= n; i += 32) { /* 32 starts, and the two characters after */
            const Py_UCS2 *v = u + i + 1;  /* where c1 of those starts would be */
            __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi16(_mm_loadu_si128((const __m128i *)v), x1),
                                                  _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i *)(v + 8)), x1)),
                                     _mm_or_si128(_mm_cmpeq_epi16(_mm_loadu_si128((const __m128i *)(v + 16)), x1),
                                                  _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i *)(v + 24)), x1)));
            if (_mm_movemask_epi8(m)) {
                Py_ssize_t at = three_in2(u, i, 32, c0, c1, c2);
                if (at >= 0)
                    return at;
            }
        }
    } else if (kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *u = (const Py_UCS1 *)d;
        const __m128i x1 = _mm_set1_epi8((char)c1);
        for (; i + 64 + 2 <= n; i += 64) {
            const Py_UCS1 *v = u + i + 1;
            __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)v), x1),
                                                  _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(v + 16)), x1)),
                                     _mm_or_si128(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(v + 32)), x1),
                                                  _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(v + 48)), x1)));
            if (_mm_movemask_epi8(m)) {
                Py_ssize_t at = three_in1(u, i, 64, c0, c1, c2);
                if (at >= 0)
                    return at;
            }
        }
    }
#endif
    for (; i + 2 < n; i++)
        if (PyUnicode_READ(kind, d, i) == (Py_UCS4)c0 && PyUnicode_READ(kind, d, i + 1) == (Py_UCS4)c1 &&
            PyUnicode_READ(kind, d, i + 2) == (Py_UCS4)c2)
            return i;
    return -1;
}

/* The next header line from *i on, under the default header pattern
 *   \*\*(?<![^\n\r\u2028\u2029]\*\*)`([^`]+)`\*\*([^\n\r\u2028\u2029]*)
 * (JavaScript's /^\*\*`([^`]+)`\*\*(.*)$/m): "**`" at a line start (the
 * text's start or after \n \r U+2028 U+2029), a path of one or more
 * non-backtick characters (line ends included), "`**", the suffix up to the
 * next line end. A failed start leaves the search at the next "**`"; a
 * match resumes it after its suffix, as re.finditer does. 1: found, with at (where
 * the line starts), close (the backtick closing the path) and end (where the
 * suffix ends); 0: no more. */
static int
next_header(PyObject *text, int kind, const void *d, Py_ssize_t n, Py_ssize_t *i,
            Py_ssize_t *at_, Py_ssize_t *close_, Py_ssize_t *end_)
{
    while (*i + 5 < n) { /* "**`" + a path char + "`**": six characters at least */
        Py_ssize_t at = find3(kind, d, *i, n, '*', '*', '`'); /* where a header can start */
        if (at < 0 || at + 5 >= n)
            return 0;
        *i = at + 1;
        if (at > 0 && !line_end(PyUnicode_READ(kind, d, at - 1)))
            continue;
        Py_ssize_t close = PyUnicode_FindChar(text, '`', at + 3, n, 1);
        if (close < 0)
            return 0; /* no backtick after: no later start can close its path either */
        if (close == at + 3 || close + 2 >= n || PyUnicode_READ(kind, d, close + 1) != '*' ||
            PyUnicode_READ(kind, d, close + 2) != '*')
            continue;
        Py_ssize_t end = close + 3;
        while (end < n && !line_end(PyUnicode_READ(kind, d, end)))
            end++;
        *at_ = at;
        *close_ = close;
        *end_ = end;
        *i = end;
        return 1;
    }
    return 0;
}

/* Where the last section ends: the first `trailer` after its start, or the
 * end of the text (an empty trailer: the end); -2 on an error. The
 * library's search for "\n> " stops at every space; memchr for one byte of
 * the trailer's second character (rarer in source than a line end), each
 * hit checked whole, is several times faster. */
static Py_ssize_t
last_end(PyObject *text, PyObject *trailer, Py_ssize_t start)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), m = PyUnicode_GET_LENGTH(trailer);
    if (m == 0 || start > n)
        return n;
    int kind = PyUnicode_KIND(text), tkind = PyUnicode_KIND(trailer);
    const void *d = PyUnicode_DATA(text), *t = PyUnicode_DATA(trailer);
    Py_ssize_t k = m >= 2; /* the character memchr looks for */
    Py_UCS4 key = PyUnicode_READ(tkind, t, k);
    if (kind == PyUnicode_4BYTE_KIND || tkind > kind || (key & 0xFF) == 0) {
        Py_ssize_t found = PyUnicode_Find(text, trailer, start, n, 1);
        return found == -1 ? n : found;
    }
    const char *base = (const char *)d;
    Py_ssize_t w = kind, b = (start + k) * w, stop = n * w;
    while (b < stop) {
        const char *p = memchr(base + b, (int)(key & 0xFF), (size_t)(stop - b));
        if (p == NULL)
            break;
        Py_ssize_t at = p - base;
        b = at + 1;
        if (at % w != 0 || PyUnicode_READ(kind, d, at / w) != key)
            continue;
        Py_ssize_t pos = at / w - k;
        if (pos + m > n)
            break; /* no later start fits either */
        Py_ssize_t j = 0;
        while (j < m && PyUnicode_READ(kind, d, pos + j) == PyUnicode_READ(tkind, t, j))
            j++;
        if (j == m)
            return pos;
    }
    return n;
}

/* cut(text, trailer) -> [(start, end, path, suffix), ...]
 *
 * The sections of a response under the default header pattern (next_header):
 * a section ends where the next header starts, the last one where
 * last_end says. splitter._spans is the pure-Python cut it equals.
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
    Py_ssize_t i = 0, at, close, end, prev_start = -1;
    PyObject *prev_path = NULL, *prev_suffix = NULL;
    for (;;) {
        int found = next_header(text, kind, d, n, &i, &at, &close, &end);
        Py_ssize_t stop = found ? at : prev_path != NULL ? last_end(text, trailer, prev_start) : 0;
        if (stop == -2)
            goto error;
        if (prev_path != NULL) {
            PyObject *item = Py_BuildValue("(nnNN)", prev_start, stop, prev_path, prev_suffix);
            prev_path = prev_suffix = NULL;
            if (item == NULL || PyList_Append(out, item) < 0) {
                Py_XDECREF(item);
                goto error;
            }
            Py_DECREF(item);
        }
        if (!found)
            break;
        prev_start = at;
        prev_path = PyUnicode_Substring(text, at + 3, close);
        prev_suffix = PyUnicode_Substring(text, close + 3, end);
        if (prev_path == NULL || prev_suffix == NULL)
            goto error;
    }
    return out;
error:
    Py_XDECREF(prev_path);
    Py_XDECREF(prev_suffix);
    Py_DECREF(out);
    return NULL;
}

/* cut_headers(text, trailer, headers, symbols) -> (heads, spans)
 *
 * The cut of `cut` with each header line made a Header record once per
 * scoring call: `headers` maps a header line ("**`path`**suffix") to its
 * Header, `symbols` an item's text to its Symbol. heads: the sections'
 * Headers; spans: bytes packing three Py_ssize_t per section (start, end,
 * where its header line ends), which `sections` reads. Nothing but
 * `sections` needs the offsets as Python ints.
 */
static PyObject *
cut_headers(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *text, *trailer, *headers, *symbols;
    if (!PyArg_ParseTuple(args, "UUOO:cut_headers", &text, &trailer, &headers, &symbols) || check_memo(headers) < 0 ||
        check_memo(symbols) < 0)
        return NULL;
    if (Py_IS_TYPE(headers, &TableType) && table_holds((Table *)headers, HOLDS_HEADERS) < 0)
        return NULL;
    if (Py_IS_TYPE(symbols, &TableType) && table_holds((Table *)symbols, HOLDS_SYMBOLS) < 0)
        return NULL;
    int kind = PyUnicode_KIND(text);
    const void *d = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    PyObject *heads = PyList_New(0), *out = NULL;
    Ints spans = {NULL, 0, 0};
    if (heads == NULL)
        return NULL;
    Py_ssize_t i = 0, at, close, end;
    while (next_header(text, kind, d, n, &i, &at, &close, &end)) {
        if (spans.len > 0)
            spans.v[spans.len - 2] = at; /* the section before ends here */
        if (ints_push(&spans, at) < 0 || ints_push(&spans, n) < 0 || ints_push(&spans, end) < 0)
            goto done;
        PyObject *head;
        if (Py_IS_TYPE(headers, &TableType)) { /* one Header per header line, found from its characters */
            uint64_t h = fnv(kind, d, at, end);
            Entry *e = table_probe((Table *)headers, h, &HEADER, H_PATH, H_SUFFIX, kind, d, at + 3, close, close + 3,
                                   end);
            if (e->sym != NULL) {
                head = Py_NewRef(e->sym);
            } else {
                PyObject *path = PyUnicode_Substring(text, at + 3, close);
                PyObject *suffix = PyUnicode_Substring(text, close + 3, end);
                head = path && suffix ? make_header(path, suffix, symbols) : NULL;
                Py_XDECREF(path);
                Py_XDECREF(suffix);
                if (head != NULL && table_put((Table *)headers, e, h, head) < 0)
                    Py_CLEAR(head);
            }
            if (head == NULL || PyList_Append(heads, head) < 0) {
                Py_XDECREF(head);
                goto done;
            }
            Py_DECREF(head);
            continue;
        }
        PyObject *line = PyUnicode_Substring(text, at, end);
        if (line == NULL)
            goto done;
        head = PyDict_GetItemWithError(headers, line);
        if (head != NULL) {
            Py_INCREF(head);
        } else if (!PyErr_Occurred()) {
            PyObject *path = PyUnicode_Substring(text, at + 3, close);
            PyObject *suffix = PyUnicode_Substring(text, close + 3, end);
            head = path && suffix ? make_header(path, suffix, symbols) : NULL;
            Py_XDECREF(path);
            Py_XDECREF(suffix);
            if (head != NULL && PyDict_SetItem(headers, line, head) < 0)
                Py_CLEAR(head);
        }
        Py_DECREF(line);
        if (head == NULL || PyList_Append(heads, head) < 0) {
            Py_XDECREF(head);
            goto done;
        }
        Py_DECREF(head);
    }
    if (spans.len > 0) {
        Py_ssize_t stop = last_end(text, trailer, spans.v[spans.len - 3]);
        if (stop == -2)
            goto done;
        spans.v[spans.len - 2] = stop;
    }
    PyObject *tuple = PyList_AsTuple(heads);
    if (tuple != NULL)
        out = Py_BuildValue("(Ny#)", tuple, spans.v ? (const char *)spans.v : "", /* NULL would give None */
                            spans.len * (Py_ssize_t)sizeof(Py_ssize_t));
done:
    Py_DECREF(heads);
    PyMem_Free(spans.v);
    return out;
}

enum { UNIT_UTF16, UNIT_CODEPOINT, UNIT_UTF8 };

/* The size of text[a:b] in a unit (units.MEASURES, without slicing). */
static Py_ssize_t
size_of(int kind, const void *d, Py_ssize_t a, Py_ssize_t b, int unit)
{
    Py_ssize_t total = b - a;
    if (unit == UNIT_CODEPOINT)
        return total;
    if (unit == UNIT_UTF16) {
        if (kind == PyUnicode_4BYTE_KIND) {
            const Py_UCS4 *u = (const Py_UCS4 *)d;
            for (Py_ssize_t i = a; i < b; i++)
                total += u[i] > 0xFFFF; /* a surrogate pair */
        }
        return total;
    }
    if (kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *u = (const Py_UCS1 *)d;
        for (Py_ssize_t i = a; i < b; i++)
            total += u[i] >= 0x80;
    } else if (kind == PyUnicode_2BYTE_KIND) {
        total += utf8_extra2((const Py_UCS2 *)d, a, b);
    } else {
        const Py_UCS4 *u = (const Py_UCS4 *)d;
        for (Py_ssize_t i = a; i < b; i++)
            total += (u[i] >= 0x80) + (u[i] >= 0x800) + (u[i] >= 0x10000);
    }
    return total;
}

/* Whether text[a:b] is the start of a fence line: "```". */
static inline int
fence_at(int kind, const void *d, Py_ssize_t a, Py_ssize_t b)
{
    return a + 3 <= b && PyUnicode_READ(kind, d, a) == '`' && PyUnicode_READ(kind, d, a + 1) == '`' &&
           PyUnicode_READ(kind, d, a + 2) == '`';
}

/* The first '\n' in text[a:b], or -1. */
static Py_ssize_t
find_newline(PyObject *text, Py_ssize_t a, Py_ssize_t b)
{
    return a >= b ? -1 : PyUnicode_FindChar(text, '\n', a, b, 1);
}

/* Where the last section text[a:b] (its header line ending at h) splits
 * into source and a trailing meta block; b: no split. splitter's
 * _cut_after_last_fence, in absolute offsets: after the line of the last
 * fence ("\n```" from h - 1 on), when the fences are even and something
 * not blank follows; with no fence, after the header line. */
static Py_ssize_t
meta_split(PyObject *text, int kind, const void *d, Py_ssize_t a, Py_ssize_t b, Py_ssize_t h)
{
    Py_ssize_t from = h - 1 > a ? h - 1 : a, count = 0, last = a;
    for (Py_ssize_t p = find3(kind, d, from, b, '\n', '`', '`'); p >= 0; p = find3(kind, d, p + 1, b, '\n', '`', '`')) {
        if (fence_at(kind, d, p + 1, b)) { /* "\n```", all of it before b */
            count++;
            last = p + 1;
        }
    }
    if (h == a && fence_at(kind, d, a, b))
        count++; /* a fence on the first line has no newline before it */
    if (count % 2)
        return b;
    Py_ssize_t close;
    if (count) {
        close = find_newline(text, last, b);
        if (close < 0)
            close = b;
    } else {
        close = find_newline(text, h, b);
        if (close < 0)
            return b;
    }
    if (close < b && PyUnicode_READ(kind, d, close) == '\n')
        close++;
    for (Py_ssize_t p = close; p < b; p++) /* blank lines are not a block */
        if (!Py_UNICODE_ISSPACE(PyUnicode_READ(kind, d, p)))
            return close;
    return b;
}

/* One lazily cut Section record: its text is text[a:b], sliced when first read. */
static PyObject *
new_section(PyObject *path, PyObject *head, PyObject *text, int kind, const void *d, Py_ssize_t a, Py_ssize_t b,
            int unit, int meta)
{
    PyObject *chars = PyLong_FromSsize_t(size_of(kind, d, a, b, unit));
    PyObject *start = PyLong_FromSsize_t(a), *stop = PyLong_FromSsize_t(b), *out = NULL;
    if (chars && start && stop) {
        PyObject *vals[S_N] = {path, head, chars, NULL, meta ? Py_True : Py_False, text, start, stop};
        out = rec_new(&SECTION, vals);
    }
    Py_XDECREF(chars);
    Py_XDECREF(start);
    Py_XDECREF(stop);
    return out;
}

static PyObject *EMPTY; /* "": a meta section's path */
static PyObject *ZERO;  /* 0 */

/* sections(text, heads, spans, meta, unit) -> (Section, ...)
 *
 * The Section records of a cut (cut_headers) under trailing_block
 * (meta: split what follows the last code block off as a meta section)
 * and a unit (0 utf16, 1 codepoint, 2 utf8), sized without slicing.
 */
static PyObject *
sections(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *text, *heads;
    const char *packed;
    Py_ssize_t nbytes;
    int meta, unit;
    if (!PyArg_ParseTuple(args, "UO!y#pi:sections", &text, &PyTuple_Type, &heads, &packed, &nbytes, &meta, &unit))
        return NULL;
    Py_ssize_t count = PyTuple_GET_SIZE(heads);
    if (nbytes != count * 3 * (Py_ssize_t)sizeof(Py_ssize_t) || unit < UNIT_UTF16 || unit > UNIT_UTF8) {
        PyErr_SetString(PyExc_ValueError, "sections: spans do not fit the heads, or no such unit");
        return NULL;
    }
    const Py_ssize_t *v = (const Py_ssize_t *)packed;
    int kind = PyUnicode_KIND(text);
    const void *d = PyUnicode_DATA(text);
    Py_ssize_t split = -1, n = PyUnicode_GET_LENGTH(text);
    for (Py_ssize_t k = 0; k < count * 3; k++)
        if (v[k] < 0 || v[k] > n) {
            PyErr_SetString(PyExc_ValueError, "sections: a span outside the text");
            return NULL;
        }
    if (meta && count > 0) {
        Py_ssize_t a = v[3 * count - 3], b = v[3 * count - 2];
        split = meta_split(text, kind, d, a, b, v[3 * count - 1]);
        if (split == b)
            split = -1;
    }
    PyObject *out = PyTuple_New(count + (split >= 0));
    if (out == NULL)
        return NULL;
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *head = PyTuple_GET_ITEM(heads, k);
        PyObject *path = Py_IS_TYPE(head, HEADER.type) ? *slot(head, &HEADER, H_PATH) : NULL;
        if (path == NULL) {
            PyErr_SetString(PyExc_TypeError, "sections: heads must be Header records made by cut_headers");
            Py_DECREF(out);
            return NULL;
        }
        Py_ssize_t a = v[3 * k], b = v[3 * k + 1];
        if (k == count - 1 && split >= 0)
            b = split;
        PyObject *s = new_section(path, head, text, kind, d, a, b, unit, 0);
        if (s == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, k, s);
    }
    if (split >= 0) {
        PyObject *s = new_section(EMPTY, Py_None, text, kind, d, split, v[3 * count - 2], unit, 1);
        if (s == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, count, s);
    }
    return out;
}

/* A section's (path, chars, meta): its slots when the kernel made it, else its attributes. */
static int
section_fields(PyObject *sec, PyObject **path, Py_ssize_t *chars, int *meta)
{
    PyObject *c, *m;
    if (Py_IS_TYPE(sec, SECTION.type) && *slot(sec, &SECTION, S_PATH) && *slot(sec, &SECTION, S_CHARS) &&
        *slot(sec, &SECTION, S_META)) {
        *path = Py_NewRef(*slot(sec, &SECTION, S_PATH));
        c = Py_NewRef(*slot(sec, &SECTION, S_CHARS));
        m = Py_NewRef(*slot(sec, &SECTION, S_META));
    } else {
        *path = PyObject_GetAttrString(sec, "path");
        c = *path ? PyObject_GetAttrString(sec, "chars") : NULL;
        m = c ? PyObject_GetAttrString(sec, "meta") : NULL;
    }
    int ok = m != NULL;
    if (ok) {
        *chars = PyLong_AsSsize_t(c);
        *meta = PyObject_IsTrue(m);
        ok = !(*chars == -1 && PyErr_Occurred()) && *meta >= 0;
    }
    Py_XDECREF(c);
    Py_XDECREF(m);
    if (!ok)
        Py_CLEAR(*path);
    return ok ? 0 : -1;
}

/* tally(sections) -> (envelope, meta, files, by_path)
 *
 * What one call's sections add up to (accountant._Tally, whose pure-Python
 * loop this is): every section's chars, the meta sections' chars, (path,
 * chars) of each file section in order, and (path, chars, sections) per
 * distinct path in first-seen order.
 */
static PyObject *
tally(PyObject *self, PyObject *arg)
{
    (void)self;
    if (!PyTuple_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "tally() needs a tuple of sections");
        return NULL;
    }
    Py_ssize_t count = PyTuple_GET_SIZE(arg), env = 0, meta_chars = 0, nfiles = 0, npaths = 0;
    PyObject *files = PyTuple_New(count), *index = PyDict_New(), *out = NULL;
    Py_ssize_t *sums = PyMem_Malloc(sizeof(Py_ssize_t) * 2 * (count ? count : 1)); /* chars, sections per path */
    PyObject **paths = PyMem_Malloc(sizeof(PyObject *) * (count ? count : 1));
    if (files == NULL || index == NULL || sums == NULL || paths == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *path;
        Py_ssize_t chars;
        int meta;
        if (section_fields(PyTuple_GET_ITEM(arg, k), &path, &chars, &meta) < 0)
            goto done;
        env += chars;
        if (meta) {
            meta_chars += chars;
            Py_DECREF(path);
            continue;
        }
        PyObject *pair = Py_BuildValue("(On)", path, chars);
        if (pair == NULL) {
            Py_DECREF(path);
            goto done;
        }
        PyTuple_SET_ITEM(files, nfiles++, pair);
        PyObject *at = PyDict_GetItemWithError(index, path);
        Py_ssize_t j;
        if (at != NULL) {
            j = PyLong_AsSsize_t(at);
        } else {
            PyObject *jj = PyErr_Occurred() ? NULL : PyLong_FromSsize_t(npaths);
            if (jj == NULL || PyDict_SetItem(index, path, jj) < 0) {
                Py_XDECREF(jj);
                Py_DECREF(path);
                goto done;
            }
            Py_DECREF(jj);
            j = npaths++;
            paths[j] = path; /* borrowed: the files tuple holds it */
            sums[2 * j] = sums[2 * j + 1] = 0;
        }
        sums[2 * j] += chars;
        sums[2 * j + 1] += 1;
        Py_DECREF(path);
    }
    if (_PyTuple_Resize(&files, nfiles) < 0)
        goto done;
    PyObject *by_path = PyTuple_New(npaths);
    if (by_path == NULL)
        goto done;
    for (Py_ssize_t j = 0; j < npaths; j++) {
        PyObject *row = Py_BuildValue("(Onn)", paths[j], sums[2 * j], sums[2 * j + 1]);
        if (row == NULL) {
            Py_DECREF(by_path);
            goto done;
        }
        PyTuple_SET_ITEM(by_path, j, row);
    }
    out = Py_BuildValue("(nnON)", env, meta_chars, files, by_path);
done:
    Py_XDECREF(files);
    Py_XDECREF(index);
    PyMem_Free(sums);
    PyMem_Free(paths);
    return out;
}

/* layout(calls) -> (rows, index, heads, pooled, meta, envelope)
 *
 * accountant._Layout: the calls that returned the same text (one text_key;
 * 0 shares with none) tallied once: rows, one (envelope, sections, files,
 * by_path) per distinct text (as `tally`); index, each call's row; heads,
 * each call's (number, origin file, origin line); pooled, the by_path rows
 * of every call summed per path (as `pool`); the meta chars and the
 * envelope of all the calls.
 */
static PyObject *pool(PyObject *self, PyObject *arg);

static PyObject *
layout(PyObject *self, PyObject *arg)
{
    (void)self;
    PyObject *seq = PySequence_Fast(arg, "layout() needs a sequence of calls");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject *seen = PyDict_New(), *rows = PyList_New(0), *index = PyTuple_New(n), *heads = PyTuple_New(n);
    PyObject *by_paths = PyList_New(n), *metas = PyList_New(0), *out = NULL;
    Py_ssize_t meta = 0, env = 0;
    if (seen == NULL || rows == NULL || index == NULL || heads == NULL || by_paths == NULL || metas == NULL)
        goto done;
    for (Py_ssize_t c = 0; c < n; c++) {
        PyObject *call = PySequence_Fast_GET_ITEM(seq, c);
        PyObject *number = PyObject_GetAttrString(call, "number");
        PyObject *text_key = number ? PyObject_GetAttrString(call, "text_key") : NULL;
        PyObject *origin = text_key ? PyObject_GetAttrString(call, "origin") : NULL;
        PyObject *file = origin ? PyObject_GetAttrString(origin, "file") : NULL;
        PyObject *line = file ? PyObject_GetAttrString(origin, "line") : NULL;
        int keyed = line ? PyObject_IsTrue(text_key) : -1;
        PyObject *key = keyed < 0 ? NULL : keyed ? Py_NewRef(text_key) : Py_BuildValue("(sO)", "call", number);
        PyObject *head = key ? PyTuple_Pack(3, number, file, line) : NULL;
        Py_XDECREF(text_key);
        Py_XDECREF(origin);
        Py_XDECREF(file);
        Py_XDECREF(line);
        if (head == NULL) {
            Py_XDECREF(number);
            Py_XDECREF(key);
            goto done;
        }
        Py_DECREF(number);
        PyTuple_SET_ITEM(heads, c, head);
        PyObject *at = PyDict_GetItemWithError(seen, key); /* borrowed */
        if (at == NULL) {
            if (PyErr_Occurred()) {
                Py_DECREF(key);
                goto done;
            }
            PyObject *sections = PyObject_GetAttrString(call, "sections");
            PyObject *t = sections ? tally(NULL, sections) : NULL; /* (envelope, meta, files, by_path) */
            Py_XDECREF(sections);
            PyObject *row = t ? Py_BuildValue("(OnOO)", PyTuple_GET_ITEM(t, 0), PyTuple_GET_SIZE(PyTuple_GET_ITEM(t, 2)),
                                              PyTuple_GET_ITEM(t, 2), PyTuple_GET_ITEM(t, 3))
                              : NULL;
            PyObject *j = row ? PyLong_FromSsize_t(PyList_GET_SIZE(rows)) : NULL;
            int bad = j == NULL || PyList_Append(rows, row) < 0 || PyList_Append(metas, PyTuple_GET_ITEM(t, 1)) < 0 ||
                      PyDict_SetItem(seen, key, j) < 0;
            Py_XDECREF(t);
            Py_XDECREF(row);
            Py_XDECREF(j);
            if (bad) {
                Py_DECREF(key);
                goto done;
            }
            at = PyDict_GetItem(seen, key);
        }
        Py_DECREF(key);
        Py_ssize_t i = PyLong_AsSsize_t(at);
        PyObject *row = PyList_GET_ITEM(rows, i);
        PyTuple_SET_ITEM(index, c, Py_NewRef(at));
        PyList_SET_ITEM(by_paths, c, Py_NewRef(PyTuple_GET_ITEM(row, 3)));
        meta += PyLong_AsSsize_t(PyList_GET_ITEM(metas, i));
        env += PyLong_AsSsize_t(PyTuple_GET_ITEM(row, 0));
        if (PyErr_Occurred())
            goto done;
    }
    PyObject *pooled = pool(NULL, by_paths);
    PyObject *tuple = pooled ? PyList_AsTuple(rows) : NULL;
    if (tuple != NULL)
        out = Py_BuildValue("(NOONnn)", tuple, index, heads, pooled, meta, env);
    else
        Py_XDECREF(pooled);
done:
    Py_DECREF(seq);
    Py_XDECREF(seen);
    Py_XDECREF(rows);
    Py_XDECREF(index);
    Py_XDECREF(heads);
    Py_XDECREF(by_paths);
    Py_XDECREF(metas);
    return out;
}

/* ranked(by_path, rank, n) -> (chars credited by each of n ranks, sections used)
 *
 * accountant._Tally.ranked: `rank` maps each path to the rank of the
 * channel crediting it, or None.
 */
static PyObject *
ranked(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *by_path, *rank;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "O!O!n:ranked", &PyTuple_Type, &by_path, &PyDict_Type, &rank, &n))
        return NULL;
    if (n < 0) {
        PyErr_SetString(PyExc_ValueError, "ranked: n < 0");
        return NULL;
    }
    Py_ssize_t sums[64], *by_rank = n <= 64 ? sums : PyMem_Calloc((size_t)n, sizeof(Py_ssize_t));
    if (by_rank == NULL)
        return PyErr_NoMemory();
    if (n <= 64)
        memset(sums, 0, sizeof(sums));
    Py_ssize_t used = 0;
    PyObject *out = NULL;
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(by_path); k++) {
        PyObject *row = PyTuple_GET_ITEM(by_path, k);
        if (!PyTuple_Check(row) || PyTuple_GET_SIZE(row) != 3) {
            PyErr_SetString(PyExc_TypeError, "ranked: rows of (path, chars, sections)");
            goto done;
        }
        PyObject *winner = PyDict_GetItemWithError(rank, PyTuple_GET_ITEM(row, 0));
        if (winner == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetObject(PyExc_KeyError, PyTuple_GET_ITEM(row, 0));
            goto done;
        }
        if (winner == Py_None)
            continue;
        Py_ssize_t w = PyLong_AsSsize_t(winner);
        Py_ssize_t chars = PyLong_AsSsize_t(PyTuple_GET_ITEM(row, 1));
        Py_ssize_t secs = PyLong_AsSsize_t(PyTuple_GET_ITEM(row, 2));
        if (PyErr_Occurred())
            goto done;
        if (w < 0 || w >= n) {
            PyErr_SetString(PyExc_IndexError, "ranked: a rank past n");
            goto done;
        }
        by_rank[w] += chars;
        used += secs;
    }
    PyObject *tuple = PyTuple_New(n);
    if (tuple == NULL)
        goto done;
    for (Py_ssize_t r = 0; r < n; r++) {
        PyObject *x = PyLong_FromSsize_t(by_rank[r]);
        if (x == NULL) {
            Py_DECREF(tuple);
            goto done;
        }
        PyTuple_SET_ITEM(tuple, r, x);
    }
    out = Py_BuildValue("(Nn)", tuple, used);
done:
    if (by_rank != sums)
        PyMem_Free(by_rank);
    return out;
}

/* pool(by_paths) -> ((path, chars, sections), ...)
 *
 * accountant._Layout's pooling: the (path, chars, sections) rows of every
 * call's tally summed per path, in first-seen order.
 */
static PyObject *
pool(PyObject *self, PyObject *arg)
{
    (void)self;
    PyObject *seq = PySequence_Fast(arg, "pool() needs a sequence of tallies' by_path tuples");
    if (seq == NULL)
        return NULL;
    PyObject *index = PyDict_New(), *paths = PyList_New(0), *out = NULL;
    Ints sums = {NULL, 0, 0};
    if (index == NULL || paths == NULL)
        goto done;
    for (Py_ssize_t c = 0; c < PySequence_Fast_GET_SIZE(seq); c++) {
        PyObject *rows = PySequence_Fast_GET_ITEM(seq, c);
        if (!PyTuple_Check(rows)) {
            PyErr_SetString(PyExc_TypeError, "pool: a by_path must be a tuple");
            goto done;
        }
        for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(rows); k++) {
            PyObject *row = PyTuple_GET_ITEM(rows, k);
            if (!PyTuple_Check(row) || PyTuple_GET_SIZE(row) != 3) {
                PyErr_SetString(PyExc_TypeError, "pool: rows of (path, chars, sections)");
                goto done;
            }
            PyObject *path = PyTuple_GET_ITEM(row, 0);
            Py_ssize_t chars = PyLong_AsSsize_t(PyTuple_GET_ITEM(row, 1));
            Py_ssize_t secs = PyLong_AsSsize_t(PyTuple_GET_ITEM(row, 2));
            if (PyErr_Occurred())
                goto done;
            PyObject *at = PyDict_GetItemWithError(index, path);
            Py_ssize_t j;
            if (at != NULL) {
                j = PyLong_AsSsize_t(at);
            } else {
                if (PyErr_Occurred())
                    goto done;
                j = PyList_GET_SIZE(paths);
                PyObject *jj = PyLong_FromSsize_t(j);
                int bad = jj == NULL || PyDict_SetItem(index, path, jj) < 0 || PyList_Append(paths, path) < 0 ||
                          ints_push(&sums, 0) < 0 || ints_push(&sums, 0) < 0;
                Py_XDECREF(jj);
                if (bad)
                    goto done;
            }
            sums.v[2 * j] += chars;
            sums.v[2 * j + 1] += secs;
        }
    }
    Py_ssize_t n = PyList_GET_SIZE(paths);
    PyObject *tuple = PyTuple_New(n);
    if (tuple == NULL)
        goto done;
    for (Py_ssize_t j = 0; j < n; j++) {
        PyObject *row = Py_BuildValue("(Onn)", PyList_GET_ITEM(paths, j), sums.v[2 * j], sums.v[2 * j + 1]);
        if (row == NULL) {
            Py_DECREF(tuple);
            goto done;
        }
        PyTuple_SET_ITEM(tuple, j, row);
    }
    out = tuple;
done:
    Py_DECREF(seq);
    Py_XDECREF(index);
    Py_XDECREF(paths);
    PyMem_Free(sums.v);
    return out;
}

/* file_paths(sections_per_call) -> (path, ...)
 *
 * The distinct paths of the file (non-meta) sections, first-seen order:
 * accountant._envelope's `paths`.
 */
static PyObject *
file_paths(PyObject *self, PyObject *arg)
{
    (void)self;
    PyObject *seq = PySequence_Fast(arg, "file_paths() needs a sequence of section tuples");
    if (seq == NULL)
        return NULL;
    PyObject *seen = PyDict_New(), *out = NULL;
    if (seen == NULL)
        goto done;
    for (Py_ssize_t c = 0; c < PySequence_Fast_GET_SIZE(seq); c++) {
        PyObject *secs = PySequence_Fast_GET_ITEM(seq, c);
        if (!PyTuple_Check(secs)) {
            PyErr_SetString(PyExc_TypeError, "file_paths: sections must be a tuple");
            goto done;
        }
        for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(secs); k++) {
            PyObject *path;
            Py_ssize_t chars;
            int meta;
            if (section_fields(PyTuple_GET_ITEM(secs, k), &path, &chars, &meta) < 0)
                goto done;
            int bad = !meta && PyDict_SetDefault(seen, path, Py_None) == NULL;
            Py_DECREF(path);
            if (bad)
                goto done;
        }
    }
    PyObject *keys = PyDict_Keys(seen); /* insertion order */
    if (keys != NULL) {
        out = PyList_AsTuple(keys);
        Py_DECREF(keys);
    }
done:
    Py_DECREF(seq);
    Py_XDECREF(seen);
    return out;
}

/* charge(heads, index, tallies, rank, n, make) -> (call scores, chars by rank)
 *
 * accountant._Charges without line credit: each distinct tally (envelope,
 * sections, files, by_path) ranked once (as `ranked`), then one CallScore
 * per call, made by `make` (a Maker of CallScore, or the class) from its
 * head (number, file, line); and the column sums of the calls' chars by rank.
 */
static PyObject *
charge(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *heads, *index, *tallies, *rank, *make;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "O!O!O!O!nO:charge", &PyTuple_Type, &heads, &PyTuple_Type, &index, &PyTuple_Type,
                          &tallies, &PyDict_Type, &rank, &n, &make))
        return NULL;
    Py_ssize_t calls = PyTuple_GET_SIZE(heads), kinds = PyTuple_GET_SIZE(tallies);
    if (PyTuple_GET_SIZE(index) != calls || n < 0) {
        PyErr_SetString(PyExc_ValueError, "charge: one index per head, n >= 0");
        return NULL;
    }
    PyObject *ranked_rows = PyTuple_New(kinds), *scores = NULL, *out = NULL;
    Py_ssize_t *columns = PyMem_Calloc((size_t)(n ? n : 1), sizeof(Py_ssize_t));
    if (ranked_rows == NULL || columns == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t t = 0; t < kinds; t++) { /* (by_rank, used, sum) per distinct tally */
        PyObject *row = PyTuple_GET_ITEM(tallies, t);
        if (!PyTuple_Check(row) || PyTuple_GET_SIZE(row) != 4) {
            PyErr_SetString(PyExc_TypeError, "charge: tallies of (envelope, sections, files, by_path)");
            goto done;
        }
        PyObject *call = Py_BuildValue("(OOn)", PyTuple_GET_ITEM(row, 3), rank, n);
        PyObject *r = call != NULL ? ranked(NULL, call) : NULL;
        Py_XDECREF(call);
        if (r == NULL)
            goto done;
        PyTuple_SET_ITEM(ranked_rows, t, r);
    }
    scores = PyTuple_New(calls);
    if (scores == NULL)
        goto done;
    for (Py_ssize_t c = 0; c < calls; c++) {
        Py_ssize_t t = PyLong_AsSsize_t(PyTuple_GET_ITEM(index, c));
        if (t == -1 && PyErr_Occurred())
            goto done;
        if (t < 0 || t >= kinds) {
            PyErr_SetString(PyExc_IndexError, "charge: an index past the tallies");
            goto done;
        }
        PyObject *head = PyTuple_GET_ITEM(heads, c), *row = PyTuple_GET_ITEM(tallies, t);
        PyObject *r = PyTuple_GET_ITEM(ranked_rows, t), *by_rank = PyTuple_GET_ITEM(r, 0);
        if (!PyTuple_Check(head) || PyTuple_GET_SIZE(head) != 3) {
            PyErr_SetString(PyExc_TypeError, "charge: heads of (number, file, line)");
            goto done;
        }
        Py_ssize_t used = 0;
        for (Py_ssize_t k = 0; k < n; k++) {
            Py_ssize_t x = PyLong_AsSsize_t(PyTuple_GET_ITEM(by_rank, k));
            used += x;
            columns[k] += x;
        }
        PyObject *total = PyLong_FromSsize_t(used);
        if (total == NULL)
            goto done;
        PyObject *argv[11] = {
            PyTuple_GET_ITEM(head, 0), PyTuple_GET_ITEM(row, 0), total, by_rank, PyTuple_GET_ITEM(row, 1),
            PyTuple_GET_ITEM(r, 1), PyTuple_GET_ITEM(row, 2), PyTuple_GET_ITEM(head, 1), PyTuple_GET_ITEM(head, 2),
            ZERO, ZERO,
        };
        PyObject *score = PyObject_Vectorcall(make, argv, 11, NULL);
        Py_DECREF(total);
        if (score == NULL)
            goto done;
        PyTuple_SET_ITEM(scores, c, score);
    }
    PyObject *sums = PyTuple_New(n);
    if (sums == NULL)
        goto done;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *x = PyLong_FromSsize_t(columns[k]);
        if (x == NULL) {
            Py_DECREF(sums);
            goto done;
        }
        PyTuple_SET_ITEM(sums, k, x);
    }
    out = Py_BuildValue("(ON)", scores, sums);
done:
    Py_XDECREF(ranked_rows);
    Py_XDECREF(scores);
    PyMem_Free(columns);
    return out;
}

/* verdicts(paths, judged, names, make) -> (rank, verdicts)
 *
 * accountant._verdicts: per path, the first ranked channel whose finding
 * credits it (judged: one mapping path -> Finding per ranked channel;
 * names: their names) and its Verdict, made by `make` (a Verdict Maker or
 * the class): (path, channel name or None, its finding's evidence or None,
 * every finding in rank order).
 */
static PyObject *
verdicts(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *paths, *judged, *names, *make;
    if (!PyArg_ParseTuple(args, "O!O!O!O:verdicts", &PyTuple_Type, &paths, &PyList_Type, &judged, &PyTuple_Type,
                          &names, &make))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(judged);
    if (PyTuple_GET_SIZE(names) != n) {
        PyErr_SetString(PyExc_ValueError, "verdicts: one name per ranked channel");
        return NULL;
    }
    PyObject *rank = PyDict_New(), *out = PyDict_New();
    if (rank == NULL || out == NULL)
        goto error;
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(paths); k++) {
        PyObject *path = PyTuple_GET_ITEM(paths, k);
        PyObject *findings = PyTuple_New(n);
        if (findings == NULL)
            goto error;
        Py_ssize_t winner = -1;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *f = PyObject_GetItem(PyList_GET_ITEM(judged, i), path);
            if (f == NULL) {
                Py_DECREF(findings);
                goto error;
            }
            PyTuple_SET_ITEM(findings, i, f);
            if (winner < 0) {
                PyObject *credited = PyObject_GetAttrString(f, "credited");
                int yes = credited == NULL ? -1 : PyObject_IsTrue(credited);
                Py_XDECREF(credited);
                if (yes < 0) {
                    Py_DECREF(findings);
                    goto error;
                }
                if (yes)
                    winner = i;
            }
        }
        PyObject *w = winner < 0 ? Py_NewRef(Py_None) : PyLong_FromSsize_t(winner);
        PyObject *evidence = winner < 0 ? Py_NewRef(Py_None)
                                        : PyObject_GetAttrString(PyTuple_GET_ITEM(findings, winner), "evidence");
        PyObject *verdict = NULL;
        if (w != NULL && evidence != NULL) {
            PyObject *argv[4] = {path, winner < 0 ? Py_None : PyTuple_GET_ITEM(names, winner), evidence, findings};
            verdict = PyObject_Vectorcall(make, argv, 4, NULL);
        }
        int bad = verdict == NULL || PyDict_SetItem(rank, path, w) < 0 || PyDict_SetItem(out, path, verdict) < 0;
        Py_XDECREF(w);
        Py_XDECREF(evidence);
        Py_XDECREF(verdict);
        Py_DECREF(findings);
        if (bad)
            goto error;
    }
    return Py_BuildValue("(NN)", rank, out);
error:
    Py_XDECREF(rank);
    Py_XDECREF(out);
    return NULL;
}

/* ends_key(text) -> int: a hash of the text's length and its first and last
 * 64 characters, which splitter.Cuts files texts under before comparing
 * them whole (two str slices and a tuple cost several times this). */
static PyObject *
ends_key(PyObject *self, PyObject *arg)
{
    (void)self;
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "ends_key() needs a str");
        return NULL;
    }
    int kind = PyUnicode_KIND(arg);
    const void *d = PyUnicode_DATA(arg);
    Py_ssize_t n = PyUnicode_GET_LENGTH(arg), head = n < 64 ? n : 64, tail = n - 64 > head ? n - 64 : head;
    uint64_t h = (1469598103934665603ULL ^ (uint64_t)n) * 1099511628211ULL;
    h = fnv_from(fnv_from(h, kind, d, 0, head), kind, d, tail, n);
    return PyLong_FromUnsignedLongLong(h >> 4); /* 60 bits: a small PyLong */
}

static PyMethodDef methods[] = {
    {"utf16_len", utf16_len, METH_O, "JavaScript string length (UTF-16 code units)."},
    {"utf8_len", utf8_len, METH_O, "UTF-8 bytes, a lone surrogate counting 3."},
    {"cut", cut, METH_VARARGS, "[(start, end, path, suffix)] of a response under the default header pattern."},
    {"header_parse", header_parse, METH_O, "(parsed, items, more, tags, bare names) of a header suffix."},
    {"header", header, METH_VARARGS, "The Header record of (path, suffix), Symbols shared through a dict."},
    {"cut_headers", cut_headers, METH_VARARGS, "(Headers, packed spans) of a response under the default header pattern."},
    {"sections", sections, METH_VARARGS, "The Section records of a cut_headers cut, sized in a unit."},
    {"tally", tally, METH_O, "(envelope, meta, files, by_path) of one call's sections."},
    {"ranked", ranked, METH_VARARGS, "(chars by rank, sections used) of a tally's by_path under a ranking."},
    {"pool", pool, METH_O, "The tallies' (path, chars, sections) rows summed per path, first-seen order."},
    {"file_paths", file_paths, METH_O, "The distinct paths of the file sections of some calls, first-seen order."},
    {"charge", charge, METH_VARARGS, "(CallScores, chars by rank) of a layout under a ranking, no line credit."},
    {"verdicts", verdicts, METH_VARARGS, "(path -> rank, path -> Verdict) from the ranked channels' findings."},
    {"ends_key", ends_key, METH_O, "A hash of a text's length and its first and last 64 characters."},
    {"layout", layout, METH_O, "(rows, index, heads, pooled, meta, envelope) of calls: accountant._Layout."},
    {"bind", bind, METH_VARARGS, "The record classes the kernel makes, and their slots."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_kernel", NULL, -1, methods};

PyMODINIT_FUNC
PyInit__kernel(void)
{
    EMPTY = PyUnicode_FromStringAndSize("", 0);
    ZERO = PyLong_FromLong(0);
    if (EMPTY == NULL || ZERO == NULL)
        return NULL;
    if (PyType_Ready(&MakerType) < 0 || PyType_Ready(&TableType) < 0)
        return NULL;
    PyObject *mod = PyModule_Create(&module);
    if (mod == NULL || PyModule_AddObjectRef(mod, "Maker", (PyObject *)&MakerType) < 0 ||
        PyModule_AddObjectRef(mod, "Table", (PyObject *)&TableType) < 0) {
        Py_XDECREF(mod);
        return NULL;
    }
    return mod;
}
