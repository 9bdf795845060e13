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
 *   spans(id, text) -> [(s, e), ...]           every match's span
 *
 * and, for the symbol channel, the loop that reads every header's names:
 *
 *   listings(calls, wanted, tag_how) -> {path: {name: {how, ...}}}
 *       core.matcher.header_listings (the pure-Python reference, which says
 *       what it returns); tests/test_match.py checks the two agree.
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

/* Interned attribute names, made at import. */
static PyObject *s_sections, *s_header, *s_meta, *s_path, *s_symbols, *s_name, *s_kind, *s_tags, *s_tag, *s_names;

/* Add how to listed[path][name], making the path's dict (*names) and the set as needed. */
static int
add_listing(PyObject *listed, PyObject **names, PyObject *path, PyObject *name, PyObject *how)
{
    if (*names == NULL) {
        *names = PyDict_GetItemWithError(listed, path); /* borrowed */
        if (*names == NULL) {
            if (PyErr_Occurred())
                return -1;
            PyObject *d = PyDict_New();
            if (d == NULL || PyDict_SetItem(listed, path, d) < 0) {
                Py_XDECREF(d);
                return -1;
            }
            Py_DECREF(d); /* listed holds it */
            *names = d;
        }
    }
    PyObject *hows = PyDict_GetItemWithError(*names, name);
    if (hows == NULL) {
        if (PyErr_Occurred())
            return -1;
        hows = PySet_New(NULL);
        if (hows == NULL || PySet_Add(hows, how) < 0 || PyDict_SetItem(*names, name, hows) < 0) {
            Py_XDECREF(hows);
            return -1;
        }
        Py_DECREF(hows);
        return 0;
    }
    return PySet_Add(hows, how);
}

/* One section's header read into listed; 0 on success. */
static int
list_header(PyObject *listed, PyObject *path, PyObject *header, PyObject *wanted, PyObject *tag_how)
{
    PyObject *names = NULL; /* borrowed: listed[path], once a name is wanted */
    PyObject *symbols = PyObject_GetAttr(header, s_symbols);
    if (symbols == NULL)
        return -1;
    PyObject *seq = PySequence_Fast(symbols, "header symbols must be a sequence");
    Py_DECREF(symbols);
    if (seq == NULL)
        return -1;
    int rc = -1;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *name = PyObject_GetAttr(items[i], s_name);
        if (name == NULL)
            goto done;
        int want = PySet_Contains(wanted, name);
        if (want > 0) {
            PyObject *kind = PyObject_GetAttr(items[i], s_kind);
            want = kind == NULL ? -1 : add_listing(listed, &names, path, name, kind);
            Py_XDECREF(kind);
        }
        Py_DECREF(name);
        if (want < 0)
            goto done;
    }
    Py_DECREF(seq);
    seq = NULL;
    PyObject *tags = PyObject_GetAttr(header, s_tags);
    if (tags == NULL)
        goto done;
    PyObject *tag_iter = PyObject_GetIter(tags);
    Py_DECREF(tags);
    if (tag_iter == NULL)
        goto done;
    PyObject *tag;
    while ((tag = PyIter_Next(tag_iter)) != NULL) {
        PyObject *how = NULL, *tag_names = PyObject_GetAttr(tag, s_names);
        PyObject *it = tag_names == NULL ? NULL : PyObject_GetIter(tag_names);
        Py_XDECREF(tag_names);
        int bad = it == NULL;
        PyObject *name;
        while (!bad && (name = PyIter_Next(it)) != NULL) {
            int want = PySet_Contains(wanted, name);
            if (want > 0 && how == NULL) { /* the tag's word, as the channel spells it */
                PyObject *word = PyObject_GetAttr(tag, s_tag);
                how = word == NULL ? NULL : PyObject_CallOneArg(tag_how, word);
                Py_XDECREF(word);
                if (how == NULL)
                    want = -1;
            }
            if (want > 0)
                want = add_listing(listed, &names, path, name, how);
            Py_DECREF(name);
            bad = want < 0;
        }
        Py_XDECREF(it);
        Py_XDECREF(how);
        Py_DECREF(tag);
        if (bad || PyErr_Occurred()) {
            Py_DECREF(tag_iter);
            goto done;
        }
    }
    Py_DECREF(tag_iter);
    if (PyErr_Occurred())
        goto done;
    rc = 0;
done:
    Py_XDECREF(seq);
    return rc;
}

static PyObject *
listings(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *calls, *wanted, *tag_how;
    if (!PyArg_ParseTuple(args, "OO!O", &calls, &PyFrozenSet_Type, &wanted, &tag_how))
        return NULL;
    PyObject *listed = PyDict_New(), *seen = PyDict_New(), *call_iter = PyObject_GetIter(calls);
    PyObject *call = NULL, *sections = NULL, *section = NULL, *header = NULL, *path = NULL;
    if (listed == NULL || seen == NULL || call_iter == NULL)
        goto error;
    while ((call = PyIter_Next(call_iter)) != NULL) {
        PyObject *got = PyObject_GetAttr(call, s_sections);
        sections = got == NULL ? NULL : PyObject_GetIter(got);
        Py_XDECREF(got);
        if (sections == NULL)
            goto error;
        while ((section = PyIter_Next(sections)) != NULL) {
            header = PyObject_GetAttr(section, s_header);
            if (header == NULL)
                goto error;
            PyObject *meta = header == Py_None ? NULL : PyObject_GetAttr(section, s_meta);
            int skip = header == Py_None ? 1 : meta == NULL ? -1 : PyObject_IsTrue(meta);
            Py_XDECREF(meta);
            if (skip < 0)
                goto error;
            if (!skip) {
                /* A file returned again under the same Header object adds nothing
                   (its sets already hold it): list it once. Keyed by the header's
                   address, which lives through the loop, to the path it came with
                   (an int key and no tuple: nothing for the collector to track);
                   the same header under another path is listed again, which only
                   re-adds what is there. */
                path = PyObject_GetAttr(section, s_path);
                PyObject *key = path == NULL ? NULL : PyLong_FromVoidPtr(header);
                int known = -1;
                if (key != NULL) {
                    PyObject *before = PyDict_GetItemWithError(seen, key);
                    known = before != NULL ? (before == path ? 1 : PyObject_RichCompareBool(before, path, Py_EQ))
                                           : PyErr_Occurred() ? -1 : PyDict_SetItem(seen, key, path) < 0 ? -1 : 0;
                }
                Py_XDECREF(key);
                if (known < 0 || (known == 0 && list_header(listed, path, header, wanted, tag_how) < 0))
                    goto error;
                Py_CLEAR(path);
            }
            Py_CLEAR(header);
            Py_CLEAR(section);
        }
        Py_CLEAR(sections);
        Py_CLEAR(call);
        if (PyErr_Occurred())
            goto error;
    }
    if (PyErr_Occurred())
        goto error;
    Py_DECREF(call_iter);
    Py_DECREF(seen);
    return listed;
error:
    Py_XDECREF(path);
    Py_XDECREF(header);
    Py_XDECREF(section);
    Py_XDECREF(sections);
    Py_XDECREF(call);
    Py_XDECREF(call_iter);
    Py_XDECREF(seen);
    Py_XDECREF(listed);
    return NULL;
}

static PyObject *
spans(PyObject *self, PyObject *args)
{
    (void)self;
    int id;
    PyObject *text;
    Text t;
    if (parse(args, "spans", &id, &text, &t) < 0)
        return NULL;
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    Py_ssize_t m[4], pos = 0;
    while (find(id, &t, pos, m)) {
        PyObject *span = Py_BuildValue("(nn)", m[0], m[1]);
        if (span == NULL || PyList_Append(out, span) < 0) {
            Py_XDECREF(span);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(span);
        pos = m[1];
    }
    return out;
}

static PyMethodDef methods[] = {
    {"findall", findall, METH_VARARGS, "re.findall of shipped pattern `id` (group 1 if it has one)."},
    {"finditer", finditer, METH_VARARGS, "Every match's spans ((start, end), group 1's...) of shipped pattern `id`."},
    {"spans", spans, METH_VARARGS, "[(start, end)] of every match of shipped pattern `id`."},
    {"listings", listings, METH_VARARGS, "{path: {name: {how}}}: the wanted names the calls' headers list."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_match", NULL, -1, methods};

PyMODINIT_FUNC
PyInit__match(void)
{
    struct { PyObject **slot; const char *text; } names[] = {
        {&s_sections, "sections"}, {&s_header, "header"}, {&s_meta, "meta"}, {&s_path, "path"},
        {&s_symbols, "symbols"}, {&s_name, "name"}, {&s_kind, "kind"}, {&s_tags, "tags"},
        {&s_tag, "tag"}, {&s_names, "names"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if ((*names[i].slot = PyUnicode_InternFromString(names[i].text)) == NULL)
            return NULL;
    return PyModule_Create(&module);
}
