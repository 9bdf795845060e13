/* citeledger.core._match: the shipped citation patterns, matched in C.
 *
 * Each pattern below is matched exactly as re.compile(PATTERN, re.ASCII) (and
 * RE2, core/patterns.py) matches it: leftmost-first, non-overlapping, the same
 * spans and groups, offsets in code points, on any str (lone surrogates are
 * code points like any other; every class here is ASCII or the complement of
 * one). None can match the empty string. core/patterns.py uses this module
 * only when a compiled pattern's text and flags equal one of these;
 * tests/test_match.py checks every one against re and RE2.
 *
 * Every matcher is linear time (docs/decisions.md, issues 11 and 14): a failed
 * attempt skips the whole run of characters it examined (every start inside
 * that run fails the same way, argued at each matcher), and after a match the
 * text from its end is examined at most once more.
 *
 *   0  with_directory   (?:[\w@.+-]+/)+[\w@.+-]+\.[A-Za-z]\w*
 *   1  basename         \b[\w@+-]+\.[A-Za-z]\w*
 *   2  dotted basename  \b[\w@+-]+(?:\.[\w@+-]+)*\.[A-Za-z]\w*    (corrected)
 *   3  code_span        `([^`\n]+)`                                (group 1)
 *   4  token            [A-Za-z_$][\w$]*
 *
 *   findall(id, text) -> [str]                 re.findall: group 1 if the pattern has one, else the match
 *   finditer(id, text) -> [((s, e), ...), ...] every match's spans, group 0 first
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

enum { WITH_DIRECTORY, BASENAME, DOTTED_BASENAME, CODE_SPAN, TOKEN, PATTERNS };
static const int GROUPS[PATTERNS] = {0, 0, 0, 1, 0};

typedef struct {
    int kind;
    const void *data;
    Py_ssize_t n;
} Text;

#define AT(t, i) PyUnicode_READ((t)->kind, (t)->data, (i))

static inline int is_alpha(Py_UCS4 c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
static inline int is_word(Py_UCS4 c) { return is_alpha(c) || (c >= '0' && c <= '9') || c == '_'; }
/* [\w@+-] */
static inline int is_name(Py_UCS4 c) { return is_word(c) || c == '@' || c == '+' || c == '-'; }
/* [\w@.+-] */
static inline int is_path(Py_UCS4 c) { return is_name(c) || c == '.'; }

/* re.ASCII's \b at i (0 <= i < n): a word character on one side only. */
static inline int boundary(const Text *t, Py_ssize_t i)
{
    int before = i > 0 && is_word(AT(t, i - 1));
    return before != is_word(AT(t, i));
}

/* The end of \w* from i. */
static inline Py_ssize_t words_from(const Text *t, Py_ssize_t i)
{
    while (i < t->n && is_word(AT(t, i)))
        i++;
    return i;
}

/* Each finder: the first match at or after pos, as m[0..3] = start, end, group
 * 1's start and end; 0 when there is none. */

/* with_directory. From a start p the group (?:[\w@.+-]+/) takes the whole run
 * of path characters up to a "/" (a shorter run leaves a path character where
 * "/" must be), so the groups take the segments seg_0/ seg_1/ ... seg_{G-1}/
 * and the final part runs inside one segment seg_j, j in 1..G, bounded by the
 * next non-path character: its [\w@.+-]+ gives back characters until a "."
 * + letter follows, so it takes the LAST "." + letter of seg_j that has a
 * character before it. Backtracking tries j = G first, then one group fewer:
 * the largest j whose segment has one. That j does not depend on where in
 * seg_0 p lies, so the first path character is the leftmost start; and when
 * no j works, no start in seg_1..seg_G works either (it would need a larger
 * j), so the search resumes after seg_G. */
static int
find_with_directory(const Text *t, Py_ssize_t pos, Py_ssize_t *m)
{
    Py_ssize_t n = t->n, p = pos;
    while (p < n) {
        if (!is_path(AT(t, p))) {
            p++;
            continue;
        }
        Py_ssize_t r = p;
        while (r < n && is_path(AT(t, r)))
            r++;
        if (r >= n || AT(t, r) != '/') {
            p = r;
            continue;
        }
        Py_ssize_t best = -1, s = r + 1, e;
        for (;;) {
            e = s;
            while (e < n && is_path(AT(t, e)))
                e++;
            for (Py_ssize_t q = e - 2; q > s; q--)
                if (AT(t, q) == '.' && is_alpha(AT(t, q + 1))) {
                    best = q;
                    break;
                }
            if (e > s && e < n && AT(t, e) == '/') {
                s = e + 1; /* seg was a group: the final part may take the next */
                continue;
            }
            break;
        }
        if (best >= 0) {
            m[0] = p;
            m[1] = words_from(t, best + 2);
            return 1;
        }
        p = e;
    }
    return 0;
}

/* basename (dotted = 0) and the corrected one (dotted = 1). [\w@+-]+ takes the
 * whole run of name characters (none is "."). Undotted, that run must be
 * followed by "." + letter; dotted, (?:\.[\w@+-]+)* takes the runs after it
 * joined by single dots (a chain), each whole, and gives them back from the
 * end until "." + letter follows: the final part takes the LAST run of the
 * chain (after the first) that starts with a letter. A start anywhere in the
 * chain before that run gives the same end, so the match starts at the first
 * name character with \b before it; no start in or after that run can find a
 * later one, so a chain without such a start fails as a whole. */
static int
find_basename(const Text *t, Py_ssize_t pos, Py_ssize_t *m, int dotted)
{
    Py_ssize_t n = t->n, p = pos;
    while (p < n) {
        if (!is_name(AT(t, p))) {
            p++;
            continue;
        }
        Py_ssize_t r = p, last = -1; /* last: start of the last run beginning with a letter */
        while (r < n && is_name(AT(t, r)))
            r++;
        while (r + 1 < n && AT(t, r) == '.' && is_name(AT(t, r + 1))) {
            if (is_alpha(AT(t, r + 1)))
                last = r + 1;
            if (!dotted)
                break;
            r++;
            while (r < n && is_name(AT(t, r)))
                r++;
        }
        if (last >= 0) {
            for (Py_ssize_t i = p; i < last - 1; i++)
                if (is_name(AT(t, i)) && boundary(t, i)) {
                    m[0] = i;
                    m[1] = words_from(t, last + 1);
                    return 1;
                }
        }
        p = r;
    }
    return 0;
}

/* code_span: from a "`", [^`\n]+ runs to the next "`" or "\n" (giving back
 * cannot bring a "`" next); a "`" there with something between closes the
 * span. Otherwise no "`" lies inside the run, so the next start is its end. */
static int
find_code_span(const Text *t, Py_ssize_t pos, Py_ssize_t *m)
{
    Py_ssize_t n = t->n, p = pos;
    while (p < n) {
        if (AT(t, p) != '`') {
            p++;
            continue;
        }
        Py_ssize_t j = p + 1;
        Py_UCS4 c = 0;
        while (j < n && (c = AT(t, j)) != '`' && c != '\n')
            j++;
        if (j < n && c == '`' && j > p + 1) {
            m[0] = p;
            m[1] = j + 1;
            m[2] = p + 1;
            m[3] = j;
            return 1;
        }
        p = j;
    }
    return 0;
}

static int
find_token(const Text *t, Py_ssize_t pos, Py_ssize_t *m)
{
    Py_ssize_t n = t->n;
    for (Py_ssize_t p = pos; p < n; p++) {
        Py_UCS4 c = AT(t, p);
        if (is_alpha(c) || c == '_' || c == '$') {
            Py_ssize_t e = p + 1;
            while (e < n && ((c = AT(t, e)) == '$' || is_word(c)))
                e++;
            m[0] = p;
            m[1] = e;
            return 1;
        }
    }
    return 0;
}

static int
find(int id, const Text *t, Py_ssize_t pos, Py_ssize_t *m)
{
    switch (id) {
    case WITH_DIRECTORY: return find_with_directory(t, pos, m);
    case BASENAME: return find_basename(t, pos, m, 0);
    case DOTTED_BASENAME: return find_basename(t, pos, m, 1);
    case CODE_SPAN: return find_code_span(t, pos, m);
    default: return find_token(t, pos, m);
    }
}

static int
parse(PyObject *args, const char *name, int *id, PyObject **text, Text *t)
{
    if (!PyArg_ParseTuple(args, "iU", id, text))
        return -1;
    if (*id < 0 || *id >= PATTERNS) {
        PyErr_Format(PyExc_ValueError, "%s(): no pattern %d", name, *id);
        return -1;
    }
    t->kind = PyUnicode_KIND(*text);
    t->data = PyUnicode_DATA(*text);
    t->n = PyUnicode_GET_LENGTH(*text);
    return 0;
}

static PyObject *
findall(PyObject *self, PyObject *args)
{
    (void)self;
    int id;
    PyObject *text;
    Text t;
    if (parse(args, "findall", &id, &text, &t) < 0)
        return NULL;
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    int g = GROUPS[id] ? 2 : 0;
    Py_ssize_t m[4], pos = 0;
    while (find(id, &t, pos, m)) {
        PyObject *s = PyUnicode_Substring(text, m[g], m[g + 1]);
        if (s == NULL || PyList_Append(out, s) < 0) {
            Py_XDECREF(s);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(s);
        pos = m[1]; /* never an empty match: no step needed */
    }
    return out;
}

static PyObject *
finditer(PyObject *self, PyObject *args)
{
    (void)self;
    int id;
    PyObject *text;
    Text t;
    if (parse(args, "finditer", &id, &text, &t) < 0)
        return NULL;
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    Py_ssize_t m[4], pos = 0;
    while (find(id, &t, pos, m)) {
        PyObject *spans = GROUPS[id] ? Py_BuildValue("((nn)(nn))", m[0], m[1], m[2], m[3])
                                     : Py_BuildValue("((nn))", m[0], m[1]);
        if (spans == NULL || PyList_Append(out, spans) < 0) {
            Py_XDECREF(spans);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(spans);
        pos = m[1];
    }
    return out;
}

static PyMethodDef methods[] = {
    {"findall", findall, METH_VARARGS, "re.findall of shipped pattern `id` (group 1 if it has one)."},
    {"finditer", finditer, METH_VARARGS, "Every match's spans ((start, end), group 1's...) of shipped pattern `id`."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_match", NULL, -1, methods};

PyMODINIT_FUNC
PyInit__match(void)
{
    return PyModule_Create(&module);
}
