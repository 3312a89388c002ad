/*
 * pykc.h - the compiler's internal header, sectioned by the file that
 * defines each part. A compilation is a pipeline over one Unit, as main.c
 * runs it:
 *
 *   lex_file -> parse_module -> sema_module -> cg_module -> target_link
 *            -> target_optimize -> target_emit -> manifest_render (or
 *            emitc_module, the C of --emit header and c) -> outputs
 *
 * Everything a pass allocates for the unit lives in the unit's Arena and is
 * released at once. Nothing here names LLVM: the back end's files
 * (codegen.c, target.c and each target) share backend.h, and LLVM's
 * objects stay outside the arena, in an IrModule.
 */
#ifndef PYKC_H
#define PYKC_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PYKC_VERSION "0.1.0"

#if defined(__GNUC__)
#define PYKC_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define PYKC_NORETURN __attribute__((noreturn))
#else
#define PYKC_PRINTF(f, a)
#define PYKC_NORETURN
#endif

/* ---- arena.c ---------------------------------------------------------- */

/* A bump allocator that hands out zeroed memory. Built with
 * -DPYKC_ARENA_MALLOC each allocation is its own malloc, so that
 * AddressSanitizer sees overruns. */
typedef struct ArenaBlock ArenaBlock;
typedef struct Arena {
    ArenaBlock *blocks;
    size_t used_bytes;
} Arena;

void *arena_alloc(Arena *a, size_t size);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_strdup(Arena *a, const char *s);
char *arena_printf(Arena *a, const char *fmt, ...) PYKC_PRINTF(2, 3);
void arena_release(Arena *a);
/* Hands p, from malloc, to the arena, which frees it on release. */
void arena_adopt(Arena *a, void *p);
/* Test hook: the Nth allocation from now on fails (0 disables). A failed
 * allocation is an internal error: pykc reports it and exits. */
void arena_fail_after(long n);

#define ARENA_NEW(a, T) ((T *)arena_alloc((a), sizeof(T)))
#define ARENA_ARRAY(a, T, n) ((T *)arena_alloc((a), sizeof(T) * (size_t)(n)))
/* Room for one more item in an arena array of `count` items and capacity
 * *cap: the array itself, or a copy twice as large (`first` items the first
 * time) when it is full; the old copy stays in the arena. */
void *arena_grow(Arena *a, void *items, int count, int *cap, size_t item_size, int first);
#define ARENA_GROW(a, items, count, cap, first) \
    ((items) = arena_grow((a), (items), (count), &(cap), sizeof *(items), (first)))

/* A growable array of pointers that grows inside the arena, so that a parse
 * abandoned half way (the parser recovers with longjmp) leaks nothing. */
typedef struct Vec {
    void **items;
    int len, cap;
} Vec;

void vec_push(Arena *a, Vec *v, void *item);

/* ---- diag.c ----------------------------------------------------------- */

/* A source file as read: its bytes are NUL-terminated, may contain NULs
 * inside (the lexer reports them), and line_starts indexes each line. */
typedef struct SourceFile {
    const char *path;
    const char *text;
    size_t size;
    int *line_starts;
    int line_count;
    int parent;             /* an embedded source (diag_add_embedded): the
                               file it lies in, else -1 */
    uint32_t within_begin, within_end; /* where in the parent */
    bool exact;             /* its bytes are the parent's from within_begin */
} SourceFile;

/* A half-open byte range [begin, end) within one source file. */
typedef struct Span {
    int file;
    uint32_t begin, end;
} Span;

/* A fix-it is reported as a note is, after the diagnostic it mends: its
 * span is the text to replace (empty to insert) and its message the text
 * to put there. */
typedef enum { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE, DIAG_FIXIT } DiagLevel;

/* How diagnostics are written: clang's text as they come, or one JSON
 * document (GCC's -fdiagnostics-format=json) or SARIF 2.1.0 log at the end. */
typedef enum { DIAG_FORMAT_TEXT, DIAG_FORMAT_JSON, DIAG_FORMAT_SARIF } DiagFormat;

/* Where diag_line_col_at last was: see there. */
typedef struct LineColCursor {
    int file, line, col;
    uint32_t off;
    bool valid;
} LineColCursor;

typedef struct Diag {
    SourceFile **files;
    int file_count, file_cap;
    int error_count, warning_count;
    int error_limit;        /* 0 means no limit */
    bool werror;
    bool stop;              /* the error limit was reached */
    bool dropped;           /* the last error or warning was not printed,
                               so its notes are not either */
    FILE *out;
    struct HeldDiag *held;  /* diagnostics held back: a heap in source order */
    int held_count, held_cap;
    int held_seq;
    int last_held_file;     /* where the last held one sorts: its notes */
    uint32_t last_held_key; /* sort with it */
    int hold_depth;         /* holders nest: an outer one prints all */
    LineColCursor cursor;   /* for messages printed in source order */
    Span last_excerpt;      /* what the last text excerpt showed, for a fix-it */
    DiagFormat format;
    struct DiagRecord *records; /* JSON, SARIF: what was reported, in order */
    int record_count, record_cap;
} Diag;

/* A diagnostic kept for a JSON or SARIF document. */
typedef struct DiagRecord {
    DiagLevel level;
    bool promoted;
    Span where;             /* file -1: no place */
    char *message;
} DiagRecord;

void diag_init(Diag *d, FILE *out);
/* Holding: from diag_hold on, diagnostics are counted (and the error limit
 * applied) as they come, but printed later in source order, so that the
 * lexer's errors, found in one pass over the file, interleave with the
 * parser's. lex_file holds; parse_module releases what lies before each
 * statement it starts and the rest at its end. A caller that lexes without
 * parsing calls diag_release_all; diag_free prints whatever is still held.
 * Holds nest: inside an outer one (sema holds while it types the module,
 * and parses signatures and imports meanwhile) releasing prints nothing,
 * and the outermost diag_release_all prints everything in order. */
void diag_hold(Diag *d);
void diag_release(Diag *d, int file, uint32_t before);
void diag_release_all(Diag *d);
void diag_free(Diag *d);
/* Reads path whole; returns its file index, or -1 with *err set. */
int diag_load_file(Diag *d, const char *path, const char **err);
int diag_add_source(Diag *d, const char *path, const char *text, size_t size);
/* A source that lies inside a file already added (a signature string in a
 * decorator, within = the string's contents there): what is reported in it
 * is reported in that file, at the same offset from within.begin where
 * exact (the text is those bytes), else over all of within. */
int diag_add_embedded(Diag *d, const char *text, size_t size, Span within, bool exact);
const SourceFile *diag_file(const Diag *d, int file);
void diag_line_col(const Diag *d, int file, uint32_t off, int *line, int *col);
/* The same, remembering where it was (a LineColCursor), so that a walk
 * forward through a file costs one pass over each line, not one a query. */
void diag_line_col_at(const Diag *d, LineColCursor *cur, int file, uint32_t off, int *line, int *col);
/* Length of the valid UTF-8 sequence at s (at most avail bytes) and its code
 * point, or 0 if the bytes there are not one. Columns count characters: a
 * valid sequence is one character, and so is each byte that is not. */
int utf8_decode(const char *s, size_t avail, uint32_t *cp);
static inline int utf8_char_bytes(const char *s, size_t avail) {
    int n = utf8_decode(s, avail, NULL);
    return n ? n : 1;
}
void diag_error(Diag *d, Span where, const char *fmt, ...) PYKC_PRINTF(3, 4);
void diag_warning(Diag *d, Span where, const char *fmt, ...) PYKC_PRINTF(3, 4);
void diag_note(Diag *d, Span where, const char *fmt, ...) PYKC_PRINTF(3, 4);
/* Mends the diagnostic just reported: replace where (insert, if empty) by text. */
void diag_fixit(Diag *d, Span where, const char *text);
/* Writes the JSON or SARIF document of d's records to d->out (diagfmt.c). */
void diag_write_document(Diag *d);
void diag_report(Diag *d, DiagLevel level, Span where, const char *fmt, va_list ap);
/* An error that concerns no place in a source file. */
void diag_plain(Diag *d, DiagLevel level, const char *fmt, ...) PYKC_PRINTF(3, 4);
/* The FNV-1a 64 digest of data, "fnv1a64:" and 16 lowercase hex digits,
 * into out (25 bytes): the manifest's digests, --sig's entry names. */
void digest_fnv1a64(const void *data, size_t len, char out[25]);
/* An internal compiler error: a bug in pykc, never in the input. */
PYKC_NORETURN void ice(const char *fmt, ...) PYKC_PRINTF(1, 2);

static inline Span span_join(Span a, Span b) {
    Span s = a;
    if (b.end > s.end) s.end = b.end;
    if (b.begin < s.begin) s.begin = b.begin;
    return s;
}

/* ---- lexer.c ---------------------------------------------------------- */

/* Token kinds, their spellings and the keyword table: ORDER TOKENS.
 * TK_ERROR stands where the lexer reported an error (a stray character, an
 * unmatched bracket): the parser gives up on that statement silently, so
 * one mistake makes one message. */
#define TOKEN_LIST(X)                                                          \
    X(TK_EOF, "end of file")                                                   \
    X(TK_NEWLINE, "newline")                                                   \
    X(TK_INDENT, "indent")                                                     \
    X(TK_DEDENT, "dedent")                                                     \
    X(TK_NAME, "name")                                                         \
    X(TK_INT, "integer literal")                                               \
    X(TK_FLOAT, "float literal")                                               \
    X(TK_IMAG, "imaginary literal")                                            \
    X(TK_STRING, "string literal")                                             \
    X(TK_FSTRING, "f-string")                                                  \
    X(TK_ERROR, "invalid token")                                               \
    X(TK_LPAREN, "(")  X(TK_RPAREN, ")")                                       \
    X(TK_LBRACKET, "[") X(TK_RBRACKET, "]")                                    \
    X(TK_LBRACE, "{")  X(TK_RBRACE, "}")                                       \
    X(TK_COLON, ":")   X(TK_COMMA, ",")   X(TK_SEMI, ";")                      \
    X(TK_DOT, ".")     X(TK_ELLIPSIS, "...") X(TK_ARROW, "->")                 \
    X(TK_AT, "@")      X(TK_WALRUS, ":=")                                      \
    X(TK_PLUS, "+")    X(TK_MINUS, "-")   X(TK_STAR, "*")                      \
    X(TK_SLASH, "/")   X(TK_DSLASH, "//") X(TK_PERCENT, "%")                   \
    X(TK_DSTAR, "**")  X(TK_AMP, "&")     X(TK_PIPE, "|")                      \
    X(TK_CARET, "^")   X(TK_TILDE, "~")   X(TK_SHL, "<<") X(TK_SHR, ">>")      \
    X(TK_LT, "<")      X(TK_GT, ">")      X(TK_LE, "<=")  X(TK_GE, ">=")       \
    X(TK_EQEQ, "==")   X(TK_NE, "!=")     X(TK_ASSIGN, "=")                    \
    X(TK_PLUSEQ, "+=") X(TK_MINUSEQ, "-=") X(TK_STAREQ, "*=")                  \
    X(TK_SLASHEQ, "/=") X(TK_DSLASHEQ, "//=") X(TK_PERCENTEQ, "%=")            \
    X(TK_DSTAREQ, "**=") X(TK_AMPEQ, "&=") X(TK_PIPEEQ, "|=")                  \
    X(TK_CARETEQ, "^=") X(TK_SHLEQ, "<<=") X(TK_SHREQ, ">>=")                  \
    X(TK_ATEQ, "@=")                                                           \
    KEYWORD_LIST(X)

/* Python 3's keywords; `match`, `case` and `type` are soft and lex as names. */
#define KEYWORD_LIST(X)                                                        \
    X(TK_FALSE, "False") X(TK_NONE, "None") X(TK_TRUE, "True")                 \
    X(TK_AND, "and") X(TK_AS, "as") X(TK_ASSERT, "assert")                     \
    X(TK_ASYNC, "async") X(TK_AWAIT, "await") X(TK_BREAK, "break")             \
    X(TK_CLASS, "class") X(TK_CONTINUE, "continue") X(TK_DEF, "def")           \
    X(TK_DEL, "del") X(TK_ELIF, "elif") X(TK_ELSE, "else")                     \
    X(TK_EXCEPT, "except") X(TK_FINALLY, "finally") X(TK_FOR, "for")           \
    X(TK_FROM, "from") X(TK_GLOBAL, "global") X(TK_IF, "if")                   \
    X(TK_IMPORT, "import") X(TK_IN, "in") X(TK_IS, "is")                       \
    X(TK_LAMBDA, "lambda") X(TK_NONLOCAL, "nonlocal") X(TK_NOT, "not")         \
    X(TK_OR, "or") X(TK_PASS, "pass") X(TK_RAISE, "raise")                     \
    X(TK_RETURN, "return") X(TK_TRY, "try") X(TK_WHILE, "while")               \
    X(TK_WITH, "with") X(TK_YIELD, "yield")

typedef enum {
#define X(kind, spelling) kind,
    TOKEN_LIST(X)
#undef X
    TK_COUNT
} TokenKind;

typedef struct TokenArray TokenArray;

typedef struct Token {
    TokenKind kind;
    uint32_t off, len;      /* bytes of the token in the source */
    int line, col;          /* 1-based; col counts characters */
    bool non_ascii;         /* TK_NAME: it has non-ASCII letters, which
                               Python allows and kernels do not */
    union {
        struct { uint64_t value; bool overflow; } i;  /* TK_INT */
        double f;                                      /* TK_FLOAT, TK_IMAG */
        struct {                                       /* TK_STRING, TK_FSTRING */
            const char *data; size_t len; bool bytes;
            uint32_t named_escape;  /* 1 + the offset of a \N{...} escape,
                                       whose value pykc does not know; 0 */
            TokenArray *fields;     /* TK_FSTRING: the expression of each
                                       replacement field (those of format
                                       specs too), lexed, in order */
            int field_count;
        } s;
    } v;
} Token;

struct TokenArray {
    Token *tokens;
    int count;
};

/* Tokenizes a whole file into the arena; lexical errors go to diag, held
 * (diag_hold) for parse_module to print in order with its own, and the token
 * stream stays well formed (it always ends in NEWLINE, DEDENTs, EOF). */
TokenArray lex_file(Arena *a, Diag *d, int file);
const char *token_kind_name(TokenKind k);

/* Indentation deeper than this is refused, as CPython does at 100. */
#define PYKC_MAX_INDENT 100

/* ---- ast.c ------------------------------------------------------------ */

#define NODE_LIST(X)                                                           \
    /* module and definitions */                                               \
    X(ND_MODULE, "Module") X(ND_IMPORT, "Import")                              \
    X(ND_IMPORT_FROM, "ImportFrom") X(ND_ALIAS, "Alias")                       \
    X(ND_FUNCDEF, "FunctionDef") X(ND_PARAM, "Param")                          \
    X(ND_CLASSDEF, "ClassDef")                                                 \
    /* statements */                                                           \
    X(ND_ASSIGN, "Assign") X(ND_ANNASSIGN, "AnnAssign")                        \
    X(ND_AUGASSIGN, "AugAssign") X(ND_IF, "If") X(ND_WHILE, "While")           \
    X(ND_FOR, "For") X(ND_BREAK, "Break") X(ND_CONTINUE, "Continue")           \
    X(ND_RETURN, "Return") X(ND_PASS, "Pass") X(ND_ASSERT, "Assert")           \
    X(ND_RAISE, "Raise") X(ND_EXPR_STMT, "Expr")                               \
    /* host code, parsed only to be skipped (see Node.name) */                 \
    X(ND_HOST, "Host") X(ND_HOST_EXPR, "HostExpr")                             \
    /* expressions */                                                          \
    X(ND_NAME, "Name") X(ND_INT, "Int") X(ND_FLOAT, "Float")                   \
    X(ND_IMAG, "Imag") X(ND_STR, "Str") X(ND_BOOL, "Bool")                     \
    X(ND_NONE, "None") X(ND_ELLIPSIS, "Ellipsis") X(ND_BINOP, "BinOp")         \
    X(ND_UNARY, "UnaryOp") X(ND_BOOLOP, "BoolOp") X(ND_COMPARE, "Compare")     \
    X(ND_IFEXP, "IfExp") X(ND_CALL, "Call") X(ND_KEYWORD, "Keyword")           \
    X(ND_ATTR, "Attribute") X(ND_SUBSCRIPT, "Subscript")                       \
    X(ND_SLICE, "Slice") X(ND_TUPLE, "Tuple") X(ND_LIST, "List")             \
    X(ND_LAMBDA, "Lambda")

typedef enum {
#define X(kind, name) kind,
    NODE_LIST(X)
#undef X
    ND_COUNT
} NodeKind;

/* Operators of BinOp, UnaryOp, BoolOp, Compare and AugAssign: ORDER OPS. */
#define OP_LIST(X)                                                             \
    X(OP_ADD, "+", "Add") X(OP_SUB, "-", "Sub") X(OP_MUL, "*", "Mult")         \
    X(OP_DIV, "/", "Div") X(OP_FLOORDIV, "//", "FloorDiv")                     \
    X(OP_MOD, "%", "Mod") X(OP_POW, "**", "Pow") X(OP_MATMUL, "@", "MatMult")  \
    X(OP_LSHIFT, "<<", "LShift") X(OP_RSHIFT, ">>", "RShift")                  \
    X(OP_BITAND, "&", "BitAnd") X(OP_BITOR, "|", "BitOr")                      \
    X(OP_BITXOR, "^", "BitXor")                                                \
    X(OP_NEG, "-", "USub") X(OP_POS, "+", "UAdd") X(OP_INVERT, "~", "Invert")  \
    X(OP_NOT, "not", "Not")                                                    \
    X(OP_AND, "and", "And") X(OP_OR, "or", "Or")                               \
    X(OP_EQ, "==", "Eq") X(OP_NE, "!=", "NotEq") X(OP_LT, "<", "Lt")           \
    X(OP_LE, "<=", "LtE") X(OP_GT, ">", "Gt") X(OP_GE, ">=", "GtE")            \
    X(OP_IS, "is", "Is") X(OP_ISNOT, "is not", "IsNot")                        \
    X(OP_IN, "in", "In") X(OP_NOTIN, "not in", "NotIn")

typedef enum {
    OP_NONE_ = -1,
#define X(op, spelling, name) op,
    OP_LIST(X)
#undef X
    OP_COUNT
} Op;

/* The attributes that Numba's values have (arrays, complex numbers,
 * vectors, threadIdx and friends, grid groups), by name in builtins.c's
 * table: sema types an Attribute node by its attr and codegen lowers it. */
typedef enum {
    ATTR_NONE, ATTR_SHAPE, ATTR_STRIDES, ATTR_NDIM, ATTR_SIZE, ATTR_ITEMSIZE, ATTR_NBYTES, ATTR_T, ATTR_DTYPE,
    ATTR_REAL, ATTR_IMAG, ATTR_X, ATTR_Y, ATTR_Z, ATTR_W, ATTR_SYNC, ATTR_VALUE, ATTR_START, ATTR_STOP, ATTR_STEP,
    ATTR_FIELD,         /* a named tuple's field: its index in Node.dims */
} Attr;

typedef struct Node Node;
typedef struct Type Type;
typedef struct Unroll Unroll;
typedef struct Sym Sym;
typedef struct Options Options;
typedef struct Entity Entity;
typedef struct Manifest Manifest;

/* One struct for every kind, as chibicc does; which fields a kind uses is
 * written beside them. Lists are arena arrays with a count. */
struct Node {
    NodeKind kind;
    Span span;
    Type *ty;                   /* set by sema on expressions */
    Sym *sym;                   /* set by sema on names and definitions */

    const char *name;           /* Name, Attribute attr, FunctionDef, ClassDef,
                                   Param, Keyword, Alias (imported name),
                                   Import* module; Host, HostExpr: what it is
                                   ("function 'main'", "assignment"; "*" for a
                                   starred expression) */
    const char *asname;         /* Alias: `as` name (or NULL) */
    Op op;                      /* BinOp, UnaryOp, BoolOp, AugAssign */
    Span at;                    /* where an error about the node points, as
                                   clang points: a BinOp's or AugAssign's
                                   operator, an Attribute's name after the
                                   dot (empty elsewhere: use span) */
    Span *op_at;                /* Compare: each operator's span */

    Node *lhs, *rhs;            /* BinOp; Assign/AugAssign/AnnAssign target
                                   and value; Attribute/Subscript value and
                                   index; Keyword value (rhs); ImportFrom
                                   module, as a Name (lhs); a FunctionDef
                                   inside a function: the Name it assigns
                                   (lhs); Host: the statement as parsed
                                   where there is one (a host function's
                                   FunctionDef), else NULL */
    Node *cond;                 /* If/While/IfExp/Assert test; For target */
    Node *iter;                 /* For iterable */
    Node *then, *els;           /* IfExp branches; Assert msg (then) */
    Node *annotation;           /* Param, AnnAssign; FunctionDef return */
    Node *lower, *upper, *step; /* Slice parts, each possibly NULL */
    Node *func;                 /* Call callee; Lambda: its FunctionDef
                                   (named <lambda>, its body one Return) */

    Node **body; int body_len;      /* Module, FunctionDef, ClassDef, If, While, For */
    Node **orelse; int orelse_len;  /* If (elif is a nested If), While, For */
    Node **items; int item_len;     /* Tuple/List elements, Call positional
                                       args, BoolOp and Compare operands,
                                       FunctionDef params, ClassDef bases,
                                       Import* aliases,
                                       Assign targets, Return value (0/1);
                                       Host: the module names it binds (Names);
                                       HostExpr: its parts */
    Node **kwargs; int kwarg_len;   /* Call and ClassDef keywords */
    Node **decorators; int decorator_len; /* FunctionDef */
    Op *ops;                        /* Compare: item_len - 1 operators */
    Node **op_calls;                /* Compare, set by sema: where a function
                                       of pykc's own modules computes
                                       operator i (x in range(...)), its
                                       call, typed; else NULL */
    int level;                      /* ImportFrom: leading dots */
    bool star;                      /* ImportFrom: `import *` */
    bool paren;                     /* Tuple written in parentheses */
    bool inplace;                   /* set by sema: a BinOp that is an
                                       operator.i* call, typed as x op= y */
    bool folded;                    /* set by sema: CPython folds this
                                       constant expression; v holds it */
    struct ConstValue *constant;    /* set by sema: what folding such an
                                       expression gave (too big for v too) */
    Type **casts;                   /* set by sema: what each operand
                                       converts to (BinOp 2, Compare 2 a
                                       pair, Call one an argument) */
    const Entity *entity;           /* set by sema: a Call's callee */
    Attr attr;                      /* set by sema: an Attribute of a value */
    long *dims;                     /* set by sema: the constant shape of a
                                       shared or local array; the element
                                       a tuple subscript takes (one for a
                                       constant index, a slice's ended by -1);
                                       a Name read that makes a closure:
                                       which of its captures the function
                                       it holds reads, in that one's order */
    const struct RecordField *field; /* set by sema: the record field an
                                       Attribute or Subscript names */
    int exception;                  /* set by sema: a Raise or Assert of a
                                       debug=True function, its code (1..) in
                                       Unit.exceptions; else 0 */
    Node **captures; int capture_len; /* set by ssa.c: what a function
                                       defined in a function reads of the
                                       enclosing one's locals, as Names read
                                       where the function is made: on its
                                       FunctionDef (at the def or lambda),
                                       and on each Name read that may hold
                                       one (the union for all it may hold) */
    int height;                     /* expression tree height, bounded by
                                       the parser so later passes may recurse */
    Unroll *unroll;                 /* set by sema: a For over
                                       literal_unroll(t), its body a copy
                                       for each type of t's elements */
    Node *retest;                   /* While, set by ssa.c: the test again at
                                       the end of the body, where CPython 3.11
                                       compiles it a second time */
    bool unreached;                 /* set by ssa.c: a statement (or retest)
                                       that CPython compiles to no reachable
                                       code, as after return or under if False */

    union {
        struct { uint64_t value; bool overflow; } i; /* Int */
        double f;                                     /* Float, Imag */
        bool b;                                       /* Bool */
        struct { const char *data; size_t len; bool bytes; } s; /* Str */
    } v;
};

/* A for loop over literal_unroll(t), as Numba's MixedContainerUnroller
 * compiles it: a loop over t's indices whose body is chosen by the index,
 * one version for each type of t's elements, typed for that type. */
typedef struct UnrollVersion {
    Type *elem;              /* the type of the elements it runs for */
    long *indices;           /* which they are */
    int index_count;
    Node *target;            /* copies of the loop's target and body */
    Node **body;
    int body_len;
} UnrollVersion;

struct Unroll {
    UnrollVersion *versions;
    int count;
};

Node *node_new(Arena *a, NodeKind kind, Span span);
const char *node_kind_name(NodeKind k);
const char *op_spelling(Op op);
const char *op_name(Op op);
/* A fresh copy of a tree without sema's annotations (types, symbols, casts). */
Node *node_clone(Arena *a, const Node *n);
/* Prints the tree in the stable form that --dump-ast and the tests use. */
void ast_dump(FILE *out, const Diag *d, const Node *n);

/* ---- parser.c --------------------------------------------------------- */

/* Nesting deeper than this (brackets, operators, blocks) is an error: it
 * bounds the parser's recursion so no input overflows its stack. */
#define PYKC_MAX_NESTING 200
/* The most dimensions an array may have: NumPy's NPY_MAXDIMS. */
#define PYKC_MAX_NDIM 64
/* Expression trees taller than this (`a+a+...+a`, `x.y.y...`) are refused,
 * which bounds the recursion of every pass after the parser. */
#define PYKC_MAX_EXPR_HEIGHT 1000

/* A whole file: host code skipped (Host nodes), kernels and device
 * functions read in the kernel language, errors reported. */
Node *parse_module(Arena *a, Diag *d, int file, const TokenArray *toks);
/* One expression of the kernel language (a signature string, a -D value, a
 * --sig), or NULL after errors. */
Node *parse_expression(Arena *a, Diag *d, int file, const TokenArray *toks);

/* ---- types.c ----------------------------------------------------------- */

/* Numba's types. Scalars are singletons (compare pointers); arrays and
 * tuples are built in the arena and compared with type_equal. Kinds past
 * TY_TUPLE are not values: they type names that stand for modules,
 * functions, dtypes and the like, which sema resolves at compile time. */
typedef enum {
    TY_ERROR,    /* after an error: silences cascades */
    TY_NONE, TY_BOOL, TY_INT, TY_FLOAT, TY_COMPLEX,
    TY_ARRAY, TY_TUPLE,
    TY_OPTIONAL, /* Numba's OptionalType(T): a T or None; dtype is T */
    TY_VECTOR,   /* a CUDA vector type: float32x4, int2 (vector_types.py) */
    TY_BFLOAT16, /* numba-cuda's Bfloat16 (__nv_bfloat16): a Number of its
                    own, with conversion rules unlike the floats' */
    TY_RECORD,   /* Numba's Record: a structured NumPy dtype's element, held
                    as the address of its bytes, as Numba holds it */
    TY_ENUM,     /* a member of an Enum or IntEnum class: cls; its value a dtype */
    TY_CLOSURE,  /* a function defined inside a function (def, lambda):
                    func its FunctionDef, elems the types of the enclosing
                    locals it reads, whose values it holds */
    TY_GRID_GROUP, /* cuda.cg.this_grid(): numba-cuda's GridGroup */
    TY_RANGE,    /* range(...): Numba's RangeType (range_state_int64), its
                    start, stop and step; dtype their type */
    TY_ITER,     /* an iterator: iter its IterKind, dtype what it yields,
                    elems what it iterates (ITER_RANGE none: dtype) */
    TY_STRING,   /* a string literal (print, assert messages, signatures) */
    TY_DTYPE,    /* a type used as a value: float32, np.int32 */
    TY_ENTITY,   /* a module, function or attribute that Numba names */
    TY_FUNC,     /* a device function of the module */
    TY_SLICE,    /* an index slice a:b:c */
    TY_CLASS,    /* a class of the module used as a value (Color, Point): cls */
    TY_EXTERN,   /* a device function cuda.declare_device declares: ext */
} TypeKind;

/* Numba's iterators, which getiter makes of an iterable, and enumerate()
 * and zip() of iterables: what a TY_ITER's elems are. */
typedef enum {
    ITER_RANGE,         /* range_iter_int64: none (dtype its values' type) */
    ITER_ARRAY,         /* iter(array(...)): the array */
    ITER_TUPLE,         /* iter(UniTuple(...)): the tuple */
    ITER_ENUMERATE,     /* enumerate(iter(...)): the iterator it counts */
    ITER_ZIP,           /* zip(...): the iterators it zips, none or more */
    ITER_UNROLL,        /* for x in literal_unroll(t): the tuple t, of any
                           types; it yields each element's index (int64),
                           by which the loop's version for the element's
                           type takes the element */
} IterKind;

/* numba.types' tuple types as an annotation writes them. */
typedef enum { TUPLE_TYPE_UNI, TUPLE_TYPE_HETEROGENEOUS } TupleTypeKind;

/* What a class of the module is: what it derives from, or what made it. */
typedef enum { CLASS_ENUM, CLASS_INT_ENUM, CLASS_NAMED_TUPLE } ClassKind;

/* A class defined at module level: an Enum or IntEnum with its members,
 * or a named tuple (collections.namedtuple, typing.NamedTuple) with its
 * fields. */
typedef struct ClassInfo {
    const char *name;
    ClassKind kind;
    Span def;
    const char **names;      /* members or fields, in order */
    int count;
    struct Type *dtype;      /* an enum: the type of its members' values */
    struct Sym **members;    /* an enum: each member, a constant */
    const char *problem;     /* an enum Numba cannot type: why, said where
                                a function uses it */
} ClassInfo;


/* A field of a record type, as NumPy lays it out. */
typedef struct RecordField {
    const char *name;
    Type *type;            /* a scalar, a record, or a nested array */
    long offset;           /* bytes from the record's start */
} RecordField;

/* A structured dtype: its fields in order, NumPy's offsets and size. */
typedef struct Record {
    RecordField *fields;
    int count;
    long size;             /* NumPy's itemsize */
    int align;             /* NumPy's alignment: 1 unless aligned */
    bool aligned;          /* np.dtype(..., align=True) */
} Record;

struct Type {
    TypeKind kind;
    int bits;              /* INT, FLOAT (16, 32, 64), COMPLEX (64, 128) */
    bool is_signed;        /* INT */
    bool literal;          /* INT, BOOL: Numba's Literal[int](v) / Literal[bool](v) */
    int64_t lit_value;
    Type *dtype;           /* ARRAY element; DTYPE the type it names;
                              RANGE its values' type; ITER what it yields;
                              VECTOR the
                              type of each of its elem_count members;
                              ENUM its value's type */
    int ndim;              /* ARRAY */
    char layout;           /* ARRAY: 'A', 'C', 'F' */
    bool readonly;         /* ARRAY: a module constant (const memory) */
    bool unaligned;        /* ARRAY: of a packed record's bytes (Numba's
                              aligned=False), or a view of them */
    const long *nested;    /* ARRAY: a record field that is an array,
                              Numba's NestedArray: its ndim extents */
    const Record *record;  /* RECORD */
    Type **elems;          /* TUPLE; ITER what it iterates (IterKind);
                              CLOSURE what it captures */
                           /* elem_count: TUPLE, VECTOR, ITER, CLOSURE */
    IterKind iter;         /* ITER */
    int elem_count;
    const Entity *entity;  /* ENTITY */
    Node *func;            /* FUNC, CLOSURE: its FunctionDef */
    ClassInfo *cls;        /* ENUM, CLASS; TUPLE: a named tuple's class */
    struct ExternFunc *ext; /* EXTERN */
};

extern Type ty_error, ty_none, ty_bool, ty_string, ty_slice, ty_grid_group;
extern Type ty_int8, ty_int16, ty_int32, ty_int64;
extern Type ty_uint8, ty_uint16, ty_uint32, ty_uint64;
extern Type ty_float16, ty_float32, ty_float64, ty_complex64, ty_complex128, ty_bfloat16;

Type *type_int(int bits, bool is_signed);
Type *type_float(int bits);
Type *type_complex(int bits);
Type *type_array(Arena *a, Type *dtype, int ndim, char layout);
Type *type_tuple(Arena *a, Type **elems, int n);
Type *type_unituple(Arena *a, Type *elem, int n);
Type *type_dtype(Arena *a, Type *t);
Type *type_range(Arena *a, Type *elem);
/* The iterator that Numba's getiter makes of t (an iterator is its own), or
 * NULL where t is not iterable (a tuple of more than one element type). */
Type *type_getiter(Arena *a, Type *t);
/* enumerate(of) and zip(of[0], ...): of are iterators. */
Type *type_enumerate(Arena *a, Type *of);
Type *type_zip(Arena *a, Type **of, int n);
Type *type_unroll_iter(Arena *a, Type *tuple);
/* The one element type of a tuple (literals stripped), or NULL. */
Type *type_uniform_element(Arena *a, Type *t);
/* OptionalType(of), of without its literal value. */
Type *type_optional(Arena *a, Type *of);
Type *type_entity(Arena *a, const Entity *e);
Type *type_func(Arena *a, Node *def);
/* The closure of def holding values of the types caps (copied). */
Type *type_closure(Arena *a, Node *def, Type **caps, int n);
Type *type_extern(Arena *a, struct ExternFunc *ext);
Type *type_record(Arena *a, const Record *r);
/* The field of r called name, or NULL. */
const RecordField *record_field(const Record *r, const char *name);
/* NumPy's alignment of a dtype: a scalar's size (a complex number's half),
 * a record's align, a nested array's element's. */
int type_align(const Type *t);
/* The alignment Numba's data layout gives a field's value in memory. */
int type_abi_align(const Type *t);
/* A member of enum class c, and the class c itself as a value. */
Type *type_enum(Arena *a, ClassInfo *c);
Type *type_class(Arena *a, ClassInfo *c);
/* The named tuple of class c with elements elems (copied). */
Type *type_named_tuple(Arena *a, ClassInfo *c, Type **elems, int n);
/* Numba's literal types: what a constant or a name bound to one types as
 * until an operation makes it a plain int64 or bool. */
Type *type_literal_int(Arena *a, int64_t v, bool is_unsigned);
Type *type_literal_bool(Arena *a, bool v);
/* The type without its literal value (Literal[int](5) -> int64). */
Type *type_strip(Type *t);
Type *type_strip_deep(Arena *a, Type *t);  /* inside tuples too */
/* Numba's scalar type names and aliases (intp, float_, double, bool_...). */
Type *type_by_name(const char *name);
/* A name of numba.types as a signature string uses it: type_by_name's and
 * its C-flavoured ones (int_, ulonglong, size_t ...). */
Type *type_by_numba_name(const char *name);

bool type_equal(const Type *a, const Type *b);
bool is_scalar(const Type *t);   /* bool, int, float, complex, bfloat16 */
bool is_number(const Type *t);   /* int, float, complex (not bool) */
bool is_integer(const Type *t);
bool is_float(const Type *t);
bool is_value(const Type *t);    /* something a variable may hold */
int type_size(const Type *t);    /* bytes of a scalar, record or nested array */
/* Numba's spelling: int64, array(float32, 2d, C), UniTuple(int64 x 2). */
const char *type_name(Arena *a, const Type *t);

/* Numba's conversion kinds, best first (typeconv/castgraph.py). */
typedef enum { CONV_EXACT, CONV_PROMOTE, CONV_SAFE, CONV_UNSAFE, CONV_NONE } Conversion;
Conversion type_conversion(const Type *from, const Type *to);
/* Whether numba-cuda lowers the conversion that type_conversion allows:
 * an IntEnum member converts to ints only (enumimpl.py's one cast). */
bool type_cast_lowered(const Type *from, const Type *to);

/* A candidate signature of an operator or function. */
typedef struct Sig {
    Type *ret;
    Type *args[3];
    int nargs;
    bool unlowered;          /* numba-cuda types it but has no lowering:
                                a call that resolves to it is refused */
} Sig;

/* Numba's overload resolution: rates each case by its (unsafe, safe,
 * promote) conversion counts and takes the best, the first on a tie.
 * Returns the index of the case, or -1. */
int resolve_overload(const Sig *cases, int ncases, Type *const *args, int nargs, bool allow_unsafe);
/* The candidate cases of an operator (typing/builtins.py, in its order). */
const Sig *operator_cases(Op op, int nargs, int *ncases, bool *allow_unsafe);
/* Numba's unification of two types at a join (NumPy promotion for
 * numbers), or NULL if they do not unify. */
Type *type_unify(Arena *a, Type *x, Type *y);

/* ---- sema.c and builtins.c -------------------------------------------- */

/* How codegen lowers what an Entity names; the entry's `op` says which
 * operation of the family (the enums below), `lower_name` names what a
 * library or pykc's own modules call it. */
typedef enum {
    LW_NONE,
    LW_SPECIAL,         /* op: SpecialValue (threadIdx, laneid ...) */
    LW_GRID, LW_GRIDSIZE,
    LW_BARRIER,         /* op: BarrierOp */
    LW_BLOCK_VOTE,      /* op: BlockVote: syncthreads_count/and/or */
    LW_SHARED_ARRAY, LW_LOCAL_ARRAY, LW_CONST_ARRAY,
    LW_ATOMIC,          /* op: AtomicOp */
    LW_MATH,            /* op: MathOp; name: the math library's (sin, tgamma) */
    LW_BUILTIN,         /* op: BuiltinOp */
    LW_RANGE,           /* range(), enumerate(), zip(): op the IterKind
                           they make (ITER_RANGE: a range, not its iterator) */
    LW_CAST,            /* a dtype called as a function: float32(x) */
    LW_BITOP,           /* op: BitOp */
    LW_FMA, LW_SELP,
    LW_WARP,            /* op: WarpOp */
    LW_CONSTANT,        /* a float constant; name: its value (math.pi) */
    LW_FP16,            /* op: Fp16Op; name: the float32 function of FP16_VIA_FLOAT32 */
    LW_CACHE_LOAD,      /* op: CacheOp */
    LW_CACHE_STORE,     /* op: CacheOp */
    LW_VECTOR,          /* a vector type's constructor: float32x4(...) */
    LW_GRID_GROUP,      /* op: GridOp (cuda.cg) */
    LW_LIBDEVICE,       /* numba.cuda.libdevice.<f>, a call of __nv_<f>;
                           name: its signature, as libdevice_funcs.def
                           spells it */
    LW_UFUNC,           /* op: the index of a NumPy ufunc (ufunc_of) */
    LW_SETITEM,         /* operator.setitem(a, i, v): sema gives the store's
                           target, a[i], as the call's lhs */
    LW_OWN,             /* a call of a function of pykc's own modules
                           (src/lib/), which sema gives as the call's sym;
                           op: its argument count, where its rule reads it */
    LW_BF16,            /* op: Bf16Op (cuda.bf16) */
    LW_COMPILE_TIME,    /* evaluated by its typing rule, which reads its
                           arguments unevaluated (np.dtype([...])): nothing
                           is lowered */
} Lowering;

/* The operations of each family, which targets implement (backend.h). */
typedef enum { SV_THREAD_IDX, SV_BLOCK_IDX, SV_BLOCK_DIM, SV_GRID_DIM, SV_LANE_ID, SV_WARP_SIZE } SpecialValue;
typedef enum { SYNC_THREADS, SYNC_WARP, FENCE_DEVICE, FENCE_BLOCK, FENCE_SYSTEM, NANOSLEEP, BREAKPOINT } BarrierOp;
typedef enum { VOTE_COUNT, VOTE_AND, VOTE_OR } BlockVote;
typedef enum {
    ATOMIC_ADD, ATOMIC_SUB, ATOMIC_MAX, ATOMIC_MIN, ATOMIC_NANMAX, ATOMIC_NANMIN, ATOMIC_AND, ATOMIC_OR,
    ATOMIC_XOR, ATOMIC_EXCH, ATOMIC_INC, ATOMIC_DEC,
    ATOMIC_CAS,         /* cas(ary, idx, old, val) */
    ATOMIC_CAS_FIRST,   /* compare_and_swap(ary, old, val): element 0 */
} AtomicOp;
typedef enum {
    WARP_ACTIVEMASK, WARP_LANEMASK_LT, WARP_SHFL_IDX, WARP_SHFL_UP, WARP_SHFL_DOWN, WARP_SHFL_XOR,
    WARP_ALL, WARP_ANY, WARP_EQ, WARP_BALLOT, WARP_MATCH_ANY, WARP_MATCH_ALL,
} WarpOp;
typedef enum { CACHE_CA, CACHE_CG, CACHE_CS, CACHE_LU, CACHE_CV, CACHE_WB, CACHE_WT } CacheOp;
typedef enum {
    BUILTIN_ABS, BUILTIN_MIN, BUILTIN_MAX, BUILTIN_LEN, BUILTIN_INT, BUILTIN_FLOAT, BUILTIN_BOOL, BUILTIN_COMPLEX,
    BUILTIN_ROUND, BUILTIN_DIVMOD, BUILTIN_POW, BUILTIN_PRINT, BUILTIN_CONJUGATE, BUILTIN_BIT_COUNT, BUILTIN_SUM,
    BUILTIN_ITER, BUILTIN_NEXT,
    BUILTIN_LITERAL_UNROLL,  /* the tuple itself; a for loop over it runs its body
                                compiled once for each type of its elements */
} BuiltinOp;
typedef enum { BIT_POPC, BIT_CLZ, BIT_FFS, BIT_BREV } BitOp;
typedef enum {
    MATH_CALL,          /* the library's function `name` */
    MATH_DEGREES, MATH_RADIANS, MATH_POW, MATH_FREXP, MATH_MODF,
    MATH_ISNAN, MATH_ISINF, MATH_ISFINITE,
} MathOp;
typedef enum {
    FP16_ADD, FP16_SUB, FP16_MUL, FP16_DIV, FP16_EQ, FP16_NE, FP16_GT, FP16_GE, FP16_LT, FP16_LE,
    FP16_NEG, FP16_ABS, FP16_FMA, FP16_MAX, FP16_MIN,
    FP16_RCP,           /* 1/x rounded to nearest, through float32 */
    FP16_VIA_FLOAT32,   /* the float32 math function `name`, rounded back */
} Fp16Op;
typedef enum { GRID_THIS, GRID_SYNC } GridOp;
/* How numba-cuda's CUDA target computes a NumPy ufunc's loop (ufuncs.py). */
typedef enum {
    UF_MATH,            /* the math library's function `math` */
    UF_DEGREES, UF_RADIANS,
    UF_COMPARE,         /* op: the comparison */
    UF_LOGICAL,         /* op: OP_AND, OP_OR or OP_BITXOR of the truth values */
    UF_LOGICAL_NOT,
    UF_MAXIMUM, UF_MINIMUM, /* NaN wins */
    UF_FMAX, UF_FMIN,   /* NaN loses */
    UF_BITWISE,         /* op: OP_BITAND, OP_BITOR, OP_BITXOR, in the loop's type */
    UF_INVERT,
    UF_SHIFT,           /* op: OP_LSHIFT, OP_RSHIFT, in the loop's type */
    UF_ISNAN, UF_CONJUGATE, UF_DIVIDE,
} UfuncKind;

/* A NumPy ufunc as numba-cuda types and compiles it on scalars. */
typedef struct Ufunc {
    const char *name;        /* NumPy's: arctan2 */
    int nin;
    UfuncKind kind;
    Op op;
    const char *math;        /* UF_MATH: the library's name */
    const char *loops;       /* NumPy's loops in its order ("ff->f dd->d"),
                                those of types Numba has */
} Ufunc;
typedef enum {
    BF16_ADD, BF16_SUB, BF16_MUL, BF16_DIV, BF16_FMA, BF16_NEG, BF16_ABS,
    BF16_MAX, BF16_MIN,             /* the number where one is NaN */
    BF16_MAX_NAN, BF16_MIN_NAN,     /* NaN where one is NaN */
    BF16_EQ, BF16_NE, BF16_LT, BF16_LE, BF16_GT, BF16_GE,       /* ordered */
    BF16_EQU, BF16_NEU, BF16_LTU, BF16_LEU, BF16_GTU, BF16_GEU, /* unordered */
    BF16_ISNAN,
    BF16_CONVERT,                   /* to or from bfloat16, rounded to nearest */
    BF16_BITS,                      /* its bits as an int16 or uint16, or back */
} Bf16Op;

typedef enum {
    ENT_MODULE,         /* numba, numba.cuda, math, numpy, cuda.atomic ... */
    ENT_FUNCTION,       /* callable */
    ENT_DTYPE,          /* float32, numpy.int64: a type used as a value */
    ENT_DIM3,           /* threadIdx blockIdx blockDim gridDim */
    ENT_VALUE,          /* cuda.warpsize, cuda.laneid: an int32 value */
    ENT_CLASS,          /* what a class of the module derives from
                           (enum.Enum, typing.NamedTuple): op, a ClassKind */
    ENT_CLASS_FACTORY,  /* what makes a class where a module-level assignment
                           calls it (collections.namedtuple): op, a ClassKind */
    ENT_TUPLE_TYPE,     /* numba.types.UniTuple, numba.types.Tuple, called in
                           an annotation or signature: op, a TupleTypeKind */
    ENT_DECLARE_DEVICE, /* what declares an external device function where a
                           module-level assignment calls it
                           (cuda.declare_device) */
    ENT_EXCEPTION,      /* a built-in exception class (ValueError): raised,
                           or called with constant arguments in a raise */
} EntityKind;

typedef struct Sema Sema;

/* A name that Numba defines, with its typing rule and its lowering: one
 * entry a name, in builtins.c's tables. */
struct Entity {
    const char *path;        /* canonical dotted name: numba.cuda.grid */
    EntityKind kind;
    /* Types a call; NULL means resolve `cases` as a ConcreteTemplate. */
    Type *(*type_call)(Sema *s, Node *call, const Entity *e);
    const Sig *cases;
    int ncases;
    Type *type;              /* DTYPE: the type; VALUE: its type */
    Lowering lower;
    int op;                  /* the operation of the family `lower` */
    const char *lower_name;
};

const Entity *entity_lookup(const char *path);
/* The ufunc a LW_UFUNC entity names. */
const Ufunc *ufunc_of(const Entity *e);
Attr attr_lookup(const char *name);


/* Whether the entity's typing rule takes OptionalType arguments as their
 * values, as Numba's template retries them. */
bool entity_takes_optionals(const Entity *e);
/* The table's i-th entry, NULL past the last: for pykc --list-names. */
const Entity *entity_at(int i);
/* For a name pykc knows and refuses (numba-cuda cannot compile it, or it
 * runs on the host), what to use instead; else NULL. */
const char *entity_refusal(const Entity *e);
/* The i-th cuda.jit option, NULL past the last; *why: for an option that
 * has no effect or is refused, the reason (else NULL), *refused: which. */
const char *sema_jit_option(int i, const char **why, bool *refused);
/* docs/language.md's generated part: every name of the entity table and
 * every cuda.jit option, as Markdown (names.c). */
void names_list(FILE *out);
/* The source of pykc's own module `name`, in the kernel language
 * (src/lib/NAME.pyk), or NULL. */
const char *own_module_source(const char *name);
/* Canonical path of `import X` for a module pykc knows, else NULL. */
const char *entity_module_path(const char *import_name);
/* Whether `from module import name` finds name, as Python and numba-cuda
 * define the module (src/module_names.def): 1 it does, 0 it does not, -1
 * for a module whose names pykc does not check (numpy, a .pyk file). */
int entity_module_defines(const char *module, const char *name);
/* The checked modules that define name, "numba.types, numba.cuda.types",
 * or NULL: where an import of it that fails could take it from. */
const char *entity_modules_defining(Arena *a, const char *name);

/* HOST: a module name that host code binds (an assignment, a function
 * without @cuda.jit, an import of a module kernels cannot use): reading it
 * from a kernel is an error that says so. */
typedef enum { SYM_LOCAL, SYM_PARAM, SYM_CONST, SYM_FUNC, SYM_ENTITY, SYM_MODULE, SYM_HOST } SymKind;

typedef struct ConstValue ConstValue;
struct ConstValue {
    Type *ty;                /* int64, float64, bool, tuple, array */
    union { int64_t i; uint64_t u; double f; bool b; } v;
    __int128 exact;          /* an int's value while folding: Python ints
                                outgrow 64 bits in between (2 ** 64 - 1) */
    bool too_big;            /* fits neither int64 nor uint64 */
    ConstValue **elems;      /* tuple elements */
    int elem_count;
    void *data;              /* array constant: ty->dtype elements, C order */
    long *shape;             /* array constant: ty->ndim extents */
    const char *name;        /* array constant: its module-level name */
    Span at;                 /* array constant: its assignment */
};

typedef struct FuncInfo FuncInfo;

struct Sym {
    SymKind kind;
    const char *name;
    Type *ty;
    Span def;                /* first definition */
    int index;               /* PARAM: position */
    bool read, written;      /* PARAM arrays: inferred access */
    /* A local is a name's SSA version, as Numba's ssa.py renames them: x,
     * x.1, x.2 for each assignment in bytecode order, then one a merge
     * point where different versions meet (a phi), typed as the unification
     * of the versions that reach it. */
    Sym *base;               /* LOCAL, PARAM: the name's first version */
    Sym **incoming;          /* a phi: the version reaching it along each
                                predecessor, NULL where none does */
    int incoming_count;
    bool is_phi;
    Span merged;             /* a phi: the statement that ends the block where
                                the versions meet (a loop, a test), or the function */
    bool typing_phi;         /* sema: its type is being computed */
    Span assigned;           /* LOCAL: what is assigned to it, where a
                                merge that does not unify is reported */
    ConstValue *value;       /* CONST */
    Node *pending;           /* CONST not read yet: the assignment whose value
                                it is, evaluated when a kernel first reads it */
    int unpacked;            /* CONST pending: 1 + its place in a tuple of
                                targets (W, H = 16, 8), else 0 */
    struct Scope *home;      /* CONST pending: the module it is evaluated in */
    int order;               /* a module name: its place among the module's
                                bindings (1, 2, ...), which a constant's value
                                sees only those before */
    Sym *shadowed;           /* a module name: the binding it replaced */
    const Node *host;        /* HOST: the Host statement that binds it, or */
    const char *why;         /* HOST: the import's error, said where it is
                                read (def: the import) */
    FuncInfo *func;          /* FUNC */
    struct Scope *members;   /* MODULE: an imported .pyk module's names */
    const Entity *entity;    /* ENTITY */
    void *cg;                /* codegen's storage for the symbol */
    bool cg_is_value;        /* cg is the value itself, not its storage */
};

/* What @cuda.jit asks of a kernel's resources; 0 where it sets no limit. */
typedef struct KernelLimits {
    int max_threads;         /* launch_bounds[0]: threads a block */
    int min_blocks;          /* launch_bounds[1]: blocks a multiprocessor */
    int max_cluster_blocks;  /* launch_bounds[2]: blocks a cluster */
    int max_registers;       /* max_registers: registers a thread */
    bool has_carveout;
    int carveout;            /* shared_memory_carveout: -1 (the driver's
                                default) to 100 percent of shared memory */
} KernelLimits;

struct FuncInfo {
    Node *def;
    Sym *sym;
    bool is_kernel;
    Sym **params;
    int param_count;
    Type *ret;               /* none for kernels */
    bool ret_declared;       /* by an annotation or a signature */
    Sym **locals;            /* every version of every local (ssa.c) */
    int local_count, local_cap;
    bool fastmath, debug, lineinfo, cooperative;
    bool boundscheck;        /* boundscheck=True */
    unsigned checks;         /* CHECK_*: --checks, and boundscheck=True */
    bool unoptimized;        /* opt=False */
    bool forceinline;
    KernelLimits limits;
    const char *inline_mode; /* "never", "always" or NULL */
    struct LinkInput *links; /* link=: files to link with the kernel */
    int link_count;
    Span link_at;            /* the link= keyword */
    bool prepared;           /* decorators and parameters read */
    bool typing, typed;      /* in progress (recursion), finished */
    struct FuncInfo *typed_from; /* while typing: the function whose call
                                    is typing it (NULL: none), so that a
                                    call cycle can be named */
    bool has_signature;      /* an eager signature fixed the types */
    bool typed_quietly;      /* typed inside a silent pass: type again to report */
    bool abstract;           /* unannotated: exists only as specialisations */
    bool imported;           /* from an imported module: no kernel entry */
    struct Scope *globals;   /* the module scope its names resolve in */
    FuncInfo *generic;       /* a specialisation: the function it copies */
    bool closure;            /* defined inside a function (def, lambda):
                                compiled for each call, taking first what
                                it captures */
    FuncInfo *enclosing;     /* closure: the function it is defined in */
    bool captures_overflow;  /* ssa.c: its functions read more captures
                                than PYKC_MAX_CAPTURE_READS */
    bool live;               /* a specialisation called where errors are
                                said (not only in a silent pass), which is
                                compiled */
    FuncInfo **specs;        /* a device function: its specialisations */
    int spec_count;
    Node **sigs;             /* a kernel without types: the --sig given for
                                it, each a Call (NAME(types...)) */
    int sig_count;
    bool sigs_from_decorator; /* sigs: @cuda.jit([...]), not --sig */
    Node *sig;               /* a kernel's specialisation: its signature */
    FuncInfo *contiguous_of; /* a kernel's copy for C-contiguous arrays
                                (add_contiguous_copy): the kernel */
    FuncInfo *contiguous;    /* a kernel: that copy, or NULL */
    long shared_static;      /* bytes of static shared arrays */
    bool shared_dynamic;
    struct CfgBlock **blocks; /* ssa.c: the body's blocks, entry first */
    int block_count;
    void *cg[2];             /* codegen's LLVM function under the plain and
                                the fast floating-point model */
};

/* Host code that pykc skipped, as -v lists it: where, and what it was. */
typedef struct Skipped {
    Span where;
    const char *what;
} Skipped;

/* The checks a checked kernel makes (--checks, boundscheck=True). */
enum { CHECK_BOUNDS = 1, CHECK_DIV0 = 2, CHECK_ASSERT = 4 };

/* What a site that fails reports: a raise or an assert (as numba-cuda
 * reports it), or a failed check (as a diagnostic, with the values). */
typedef enum { EXC_RAISE, EXC_BOUNDS, EXC_DIV0 } ExceptionKind;

/* An exception a debug=True or checked function can raise, which
 * libpykrt reports: its class, its message, where it is raised. */
typedef struct ExceptionSite {
    ExceptionKind kind;
    const char *type;        /* AssertionError, IndexError ... */
    const char *message;     /* str() of its arguments; NULL for none */
    const char *function;
    const char *file;        /* the .pyk file's name, as the input names it */
    int line, column;
} ExceptionSite;

/* What a file of link= holds, as its extension says (numba-cuda's
 * add_file_guess_ext): what the loader tells the driver's linker. */
typedef enum { LINK_PTX, LINK_CUBIN, LINK_FATBIN, LINK_OBJECT, LINK_LIBRARY } LinkKind;

/* A file that @cuda.jit(link=...) or cuda.declare_device(link=...) names,
 * linked with the module's code when it is loaded. */
typedef struct LinkInput {
    const char *path;        /* as opened: relative to the .pyk file's
                                directory where written relative */
    const char *name;        /* its base name: the copy beside the manifest */
    LinkKind kind;
    Span at;                 /* where link= names it */
} LinkInput;

/* numba-cuda's calling conventions for an external function: "numba"
 * (int status, the result through a pointer) and "c" (the result). */
typedef enum { EXTERN_ABI_NUMBA, EXTERN_ABI_C } ExternAbi;

/* A device function that cuda.declare_device declares: defined in code
 * linked in (link=), called by its symbol with numba-cuda's ABI. */
typedef struct ExternFunc {
    const char *name;        /* its symbol */
    Type *ret;               /* none for void */
    Type **params;
    int param_count;
    ExternAbi abi;
    bool cooperative;        /* use_cooperative=True */
    Span def;                /* the declare_device call */
    LinkInput *links;        /* its link= files */
    int link_count;
    bool called;             /* some function calls it: the unit links its files */
    void *cg;                /* codegen's declaration */
} ExternFunc;

typedef struct Unit {
    Arena *arena;
    Diag *diag;
    const Options *opts;
    Node *module;
    FuncInfo **funcs;        /* in source order */
    int func_count;
    ConstValue **arrays;     /* module array constants (const.array_like) */
    int array_count;
    const char **deps;       /* the .pyk files imported, for -M */
    int dep_count;
    Skipped *skipped;        /* host code skipped, in the order met */
    int skipped_count, skipped_cap;
    bool usage_error;        /* an error of the command line (a --sig): exit 2 */
    ExceptionSite *exceptions; /* code k is exceptions[k - 1] */
    int exception_count, exception_cap;
    LinkInput *links;        /* what the module links, in the order named */
    int link_count, link_cap;
    ExternFunc **externs;    /* the declared functions called, in order */
    int extern_count, extern_cap;
    bool launches;           /* a function launches a kernel (dynamic
                                parallelism): linked with the device runtime */
} Unit;

/* What the typing rules of builtins.c may ask of sema. */
Arena *sema_arena(Sema *s);
/* A type as diagnostics name it (literal types by their base type). */
const char *sema_type_name(Sema *s, Type *t);
void sema_error(Sema *s, Span where, const char *fmt, ...) PYKC_PRINTF(3, 4);
/* A call's argument types as diagnostics list them: "int32, float32". */
const char *sema_arg_types(Sema *s, const Node *call);
/* "CALLEE takes LO [to HI] argument(s), N given", where clang puts it: at
 * the first argument past hi, or at the closing parenthesis of too few. */
void sema_arg_count_error(Sema *s, const Node *call, const char *callee, int lo, int hi);
/* A compile-time integer (a literal, a module constant, arithmetic of
 * them); reports an error naming what and returns false otherwise. */
bool sema_const_int(Sema *s, Node *n, const char *what, int64_t *out);
/* Whether n types as a Numba literal (5, a module constant, 2 * 3). */
bool sema_is_literal(Sema *s, Node *n);
/* The type a dtype argument names (float32, np.int32, a string "f4"). */
Type *sema_dtype_arg(Sema *s, Node *n, const char *what);
/* Marks an array argument as read or written, for the manifest. */
void sema_note_access(Sema *s, Node *array_arg, bool read, bool write);
void sema_note_check(Sema *s, Node *n, ExceptionKind kind);
/* The current function synchronizes its grid: a kernel that calls it
 * needs a cooperative launch. */
void sema_note_cooperative(Sema *s);
/* CUDA's limits on the arrays a kernel declares: static shared memory a
 * block (on every arch; more is dynamic, opted into at launch) and local
 * memory a thread. */
#define CUDA_MAX_STATIC_SHARED (48L << 10)
#define CUDA_MAX_LOCAL (512L << 10)
/* Adds shared memory to the current function (0 bytes: dynamic); false
 * when its static shared memory outgrows CUDA_MAX_STATIC_SHARED. */
bool sema_add_shared(Sema *s, long bytes);
/* Types call as a call of the function `name` of pykc's own module
 * `module`, specialised for the argument types args (converted to at the
 * call): its return type. The module's function NAME_T1[_T2...], named
 * after the types (sqrt_complex64), is taken before NAME where it exists. */
Type *sema_call_own(Sema *s, Node *call, const char *module, const char *name, Type *const *args);
/* Types n, a call that a typing rule has rewritten into the expression it
 * stands for (operator.add(a, b) into a + b). */
Type *sema_type_rewritten(Sema *s, Node *n);
/* Types the store of value into target (an array element or slice), as
 * an assignment does. */
void sema_assign_item(Sema *s, Node *target, Type *value, Span where);

/* Resolves names and types the module as Numba would; false on errors. */
bool sema_module(Unit *u);
/* Prints --dump-types: each function's signature and each local's type. */
/* --explain-types NAME: notes on each version of local NAME (explain.c). */
void explain_types(const Unit *u, const char *name);
void sema_dump_types(FILE *out, const Unit *u);

/* ---- ssa.c ------------------------------------------------------------- */

/* A function body as Numba sees it: the basic blocks of CPython 3.11's
 * bytecode (a while loop's test compiled twice, jumps threaded, code that
 * cannot run dropped), split where Numba splits them, loops given a single
 * back edge, and every local renamed into SSA versions by Numba's ssa.py.
 * Sema types the versions; codegen lowers the blocks in order. */
typedef enum {
    ITEM_STMT,          /* a simple statement: assignment, expression, pass */
    ITEM_FOR_INIT,      /* a For node: evaluate its iterable, start counting */
    ITEM_FOR_TARGET,    /* a For node: assign the next element to its target
                           (of an unrolled one, take the next index) */
    ITEM_UNROLL_TARGET, /* an unrolled For node: the element at the index to
                           the target of version `version` */
} CfgItemKind;

typedef struct CfgItem {
    CfgItemKind kind;
    Node *node;
    int version;
} CfgItem;

typedef enum {
    TERM_JUMP,          /* to succ[0] */
    TERM_BRANCH,        /* node: a test (or an Assert); succ[0] if true, else succ[1] */
    TERM_FOR_ITER,      /* node: a For; succ[0] the body while elements remain, else succ[1] */
    TERM_RETURN,        /* node: the Return, or NULL falling off the end */
    TERM_RAISE,         /* node: the Raise */
    TERM_UNROLL_CASE,   /* node: an unrolled For; succ[0] if its index is one
                           of version `version`'s, else succ[1] */
} CfgTermKind;

/* A phi version's assignment at the end of one of its predecessors:
 * phi = value converted, or a zero where no version reaches (value NULL). */
typedef struct PhiMove {
    Sym *phi, *value;
} PhiMove;

typedef struct CfgBlock {
    int index;
    const char *name;   /* what starts it: if.then, while.body, for.cond ... */
    CfgItem *items;
    int item_count;
    CfgTermKind term;
    Node *node;
    int version;        /* TERM_UNROLL_CASE */
    struct CfgBlock *succ[2];
    PhiMove *moves;
    int move_count;
    void *cg;           /* codegen's basic block */
} CfgBlock;

/* Builds f's blocks and versions: binds every local name node to the
 * version it reads or writes (an AugAssign node to the one it reads),
 * appends the versions to f->locals and marks what CPython drops as
 * unreached. Names reads that no assignment reaches are left without a
 * symbol. The callback says what a module-level name holds, for tests
 * that Numba prunes (`if DEBUG:`). */
typedef ConstValue *(*GlobalConstFn)(void *ctx, const char *name);
void ssa_build(Arena *a, const Diag *d, FuncInfo *f, GlobalConstFn global_const, void *ctx);
/* The most Names ssa_build makes a function for what the functions defined
 * in it capture (FuncInfo.captures_overflow past it). */
#define PYKC_MAX_CAPTURE_READS 65536

/* ---- usage.c ----------------------------------------------------------- */

/* What a kernel's body says of one parameter, for the fix-its of a kernel
 * without types: an array of ndim dimensions (why: how the body uses it)
 * or a scalar, and a dtype to suggest, "e.g.". */
typedef struct ParamUsage {
    bool array;
    int ndim;
    const char *why;         /* "indexed with several subscripts", ... */
    bool floaty;             /* its values combine with floats */
    bool index;              /* used as an index or a range bound */
    bool combined;           /* used in arithmetic or stored */
    const char *dtype;       /* "float32" or "int64" */
} ParamUsage;

/* Fills out[i] for each parameter of def, from its body's syntax. */
void infer_param_usage(Arena *a, const Node *def, ParamUsage *out);

/* ---- target.c: the back half of the pipeline ------------------------- */

typedef enum { EMIT_PTX, EMIT_LLVM, EMIT_CUBIN, EMIT_MANIFEST, EMIT_HEADER, EMIT_C, EMIT_OBJECT, EMIT_SHARED } EmitKind;

/* A target (backend.h): one per kind of machine, NVPTX the one there is. */
typedef struct Target Target;
/* A module of LLVM IR for one target configuration (backend.h). */
typedef struct IrModule IrModule;

typedef struct TargetConfig {
    const Target *target;
    const char *arch;          /* sm_75 .. sm_120a for NVPTX */
    int opt_level;             /* 0..3 */
    bool debug_info;           /* DWARF sections in the PTX (-g, --lineinfo,
                                  debug=True): a PTX version that has them */
    bool lineinfo;             /* any line information: ptxas keeps it */
    const char *libdevice;     /* --libdevice, or NULL to search */
    bool relocatable;          /* the code calls functions linked in at load
                                  time: a cubin is relocatable (ptxas -c) */
    bool libm;                 /* host: math from the C library, not
                                  libdevice (--math=libm) */
} TargetConfig;

/* What a target emits: the bytes (malloc'd) and their format's version
 * (the PTX ISA, "7.8"), as the manifest records them. */
/* What ptxas says an entry of a cubin uses (-v). */
typedef struct EntryResources {
    char *entry;             /* malloc'd */
    int registers;           /* per thread */
    long spill_bytes;        /* spill stores: local memory a thread */
} EntryResources;

typedef struct Code {
    char *bytes;
    size_t len;
    char version[8];
    EntryResources *resources; /* a cubin: each entry's, malloc'd; else NULL */
    int resource_count;
} Code;

void code_free(Code *c);

/* The target called `name` (nvptx), or NULL. */
const Target *target_find(const char *name);
const char *target_default_arch(const Target *t);
/* What the target writes without --emit (PTX, a shared object), and
 * whether it writes `kind` at all. */
EmitKind target_code_kind(const Target *t);
/* The target whose machine arch is: `preferred` (--target's) if it knows
 * it, else the one that does (sm_90 is nvptx's, x86-64-v2 host's); else
 * `preferred`, whose check_arch then says why not. */
const Target *target_of_arch(const Target *preferred, const char *arch);
bool target_emits(const Target *t, EmitKind kind);
/* Whether the target knows arch; a usage message on d if not. */
bool target_check_arch(const Target *t, const char *arch, Diag *d);
/* --version's lines after pykc's own: LLVM's version, the target and its
 * default arch, and what it would use (libdevice: --libdevice or NULL). */
void target_describe(const Target *t, FILE *out, const char *libdevice);
/* An empty module for cfg (triple and data layout set), or NULL. */
IrModule *ir_module_new(const TargetConfig *cfg, const char *name, Diag *d);
void ir_module_free(IrModule *m);
/* The stages after the IR is built, each through cfg->target: libraries
 * linked in (libdevice), the optimiser's pipeline, and the code of `kind`
 * (EMIT_LLVM: the module's IR as text). */
bool target_link(IrModule *m, Diag *d);
bool target_optimize(IrModule *m, Diag *d);
bool target_emit(IrModule *m, EmitKind kind, Code *out, Diag *d);

/* ---- program.c --------------------------------------------------------- */

/* A fresh temporary file named like pattern (XXXXXX before `suffix_len`
 * bytes of suffix) in $TMPDIR or /tmp: its descriptor, its name in path;
 * -1 with an error on d. */
int program_temp(const char *pattern, int suffix_len, char *path, size_t size, Diag *d);
/* The bytes into a fresh temporary file named like pattern, its name into
 * path; false, the file removed, with an error on d. */
bool program_write_temp(const char *pattern, int suffix_len, const char *bytes, size_t len, char *path, size_t size,
                        Diag *d);
/* The bytes of the file at path, malloc'd, or NULL. */
char *program_read_file(const char *path, size_t *len);
/* Runs argv (no shell; argv[0] searched in $PATH where it has no slash),
 * its stdout and stderr into *output (malloc'd). Returns the exit status,
 * or -1 with *why (an errno) set when it could not run. */
int program_run(char *const argv[], char **output, int *why);

/* ---- output.c ---------------------------------------------------------- */

/* The files a compilation writes: each added one is written to a temporary
 * file beside its path at once, and all are renamed into place, in the
 * order added, by outputs_commit; outputs_discard removes them instead.
 * "-" is standard output. A path that is one of the files the diagnostics
 * read (the inputs) is refused. Errors go to diag. */
typedef struct Output Output;
typedef struct Outputs {
    Output **items;
    int count, cap;
    Diag *diag;
} Outputs;

void outputs_init(Outputs *o, Diag *d);
bool output_add(Outputs *o, const char *path, const void *data, size_t len);
bool outputs_commit(Outputs *o);
void outputs_discard(Outputs *o);

/* ---- manifest.c -------------------------------------------------------- */

/* What the manifest says of a module; docs/manifest.md is the contract. */
typedef struct ManifestParam {
    const char *name;
    bool is_array;
    const char *dtype;         /* Numba's name: float32, int64, bool, ...;
                                  "record" for a structured dtype; a tuple's:
                                  UniTuple(float32 x 3) */
    int ndim;
    char layout;               /* 'A', 'C' or 'F' */
    const char *access;        /* "read", "write", "readwrite" */
    const Record *record;      /* a record dtype's layout, else NULL */
    const char **members;      /* a tuple: the dtype of each of its scalars,
                                  nested tuples flattened in order; else NULL */
    int member_count;
} ManifestParam;

typedef struct ManifestPtxParam {
    const char *type;          /* u8 u16 u32 u64 f32 f64 */
    int size, align;
    int param;                 /* index into the source parameters */
    const char *part;          /* value, data, shape[i], strides[i], real,
                                  imag; a tuple's [j], [j].real, [j].imag */
} ManifestPtxParam;

typedef struct ManifestKernel {
    const char *name, *entry;
    const char *contiguous;    /* the entry of its copy for C-contiguous
                                  arrays, or NULL */
    ManifestParam *params;
    int param_count;
    ManifestPtxParam *ptx_params;
    int ptx_param_count;
    long shared_static;        /* bytes */
    bool shared_dynamic;
    KernelLimits limits;       /* launch_bounds, max_registers, carveout */
    int registers;             /* 0 if unknown */
    bool cooperative;
    bool debug;                /* debug=True: the loader reports its raises */
    unsigned checks;           /* CHECK_*: the loader reports failed checks */
} ManifestKernel;

typedef struct ManifestTarget {
    const char *arch, *ptx_version;
    const char *kind;          /* "ptx" or "cubin" */
    const char *file;          /* relative to the manifest */
    const char *digest;        /* "fnv1a64:" + 16 hex digits */
    const EntryResources *resources; /* a cubin's, as ptxas reports them */
    int resource_count;
} ManifestTarget;

typedef struct ManifestConst {
    const char *name, *dtype;
    int ndim;
    const long *shape;
    long size;                 /* bytes */
} ManifestConst;

/* A file the loader links with the module's code (link.c). */
typedef struct ManifestLink {
    const char *file;          /* beside the manifest */
    const char *kind;          /* ptx, cubin, fatbin, object, library */
    const char *digest;
} ManifestLink;

struct Manifest {
    const char *source_path, *source_digest;
    ManifestTarget *targets;
    int target_count;
    ManifestKernel *kernels;
    int kernel_count;
    ManifestConst *consts;
    int const_count;
    const ExceptionSite *exceptions; /* code k is exceptions[k - 1] */
    int exception_count;
    const ManifestLink *links;
    int link_count;
    bool device_runtime;       /* a kernel launches kernels: link cudadevrt */
};

/* The manifest as YAML text (malloc'd, *len bytes), written with libyaml;
 * NULL, with a diagnostic, if libyaml fails. */
char *manifest_render(const Manifest *m, size_t *len, Diag *d);

/* ---- link.c: the files a module links ----------------------------------- */

/* Why the file at path cannot be linked (its extension says it holds
 * CUDA C++, LTO-IR or nothing pykc knows), or NULL with *kind what it holds. */
const char *link_classify(Arena *a, const char *path, LinkKind *kind);
/* A path written in a .pyk file, relative to that file's directory. */
const char *link_resolve(Arena *a, const char *pyk_path, const char *written);
const char *link_base_name(const char *path);
const char *link_kind_name(LinkKind kind);
/* Whether the file at output (an output of the run) is one of the unit's
 * link files, which an error then says. */
bool link_is_output(Unit *u, const char *output);
/* Where the copy of a link file beside the manifest at manifest_path goes,
 * or NULL where the file is there already. */
const char *link_copy_path(Arena *a, const char *manifest_path, const LinkInput *in);
/* Each of the unit's link files into out (u->link_count of them) as the
 * manifest at manifest_path lists it; with outs, its copy beside the
 * manifest among the outputs; with keep, its bytes (malloc'd) there. False
 * after an error. */
bool link_outputs(Unit *u, const char *manifest_path, Outputs *outs, ManifestLink *out, Code *keep);

/* ---- emitc.c: the C of --emit header and --emit c ----------------------- */

/* Adds at `path` to outs the header of typed launchers for m's kernels
 * (codes NULL), or with codes, one Code per target of m and then one per
 * file m links, the C source that holds the header and embeds m's
 * manifest and those images. */
bool emitc_module(Unit *u, const Manifest *m, const Code *codes, const char *path, Outputs *outs);

/* ---- codegen.c --------------------------------------------------------- */

/* Builds the LLVM module of a typed unit for cfg; NULL after errors. */
IrModule *cg_module(Unit *u, const TargetConfig *cfg);
/* How much debug information a unit's code carries: the most that the
 * command line (-g, --lineinfo) or a function (debug=True, lineinfo=True)
 * asks for. */
typedef enum { DEBUG_NONE, DEBUG_DIRECTIVES, DEBUG_LINES, DEBUG_FULL } DebugLevel;
DebugLevel cg_debug_level(const Unit *u);

/* ---- abi.c: how a kernel's arguments travel ----------------------------- */

typedef enum { PART_VALUE, PART_DATA, PART_SHAPE, PART_STRIDES, PART_REAL, PART_IMAG } AbiPartKind;

/* One parameter of a kernel's entry: a part of a source parameter. */
typedef struct AbiPart {
    AbiPartKind kind;
    int axis;                  /* SHAPE, STRIDES: which */
    int member;                /* of a tuple: which of its scalars, nested
                                  tuples flattened in order; else -1 */
    const Type *type;          /* the scalar it holds; DATA: NULL, a pointer
                                  to global memory */
    int size;                  /* bytes */
} AbiPart;

/* How many parts a source parameter of type t is passed as, and part i. */
int abi_part_count(const Type *t);
AbiPart abi_part(const Type *t, int i);
/* Whether a kernel can take a parameter of type t: a tuple only of
 * scalars and tuples of them. */
bool abi_passable(const Type *t);
/* The module's kernels and constants as the manifest lists them. */
void abi_describe_module(Unit *u, Manifest *m);

/* ---- main.c ------------------------------------------------------------ */

#define PYKC_MAX_ARCHS 8

typedef struct Define {
    const char *name, *value;
} Define;

/* The command line, parsed. Lists point into argv. */
struct Options {
    const Target *target;           /* --target, NULL until parsed */
    const char *input, *output;
    int opt_level;                  /* 0..3 */
    const char *archs[PYKC_MAX_ARCHS];
    int arch_count;
    EmitKind emit;
    bool emit_given;           /* --emit; else the target's code kind */
    bool target_given;         /* --target: every --arch is its; else each
                                  --arch's machine names its target */
    bool libm;                 /* --math=libm (the host target) */
    bool debug_info, lineinfo, fastmath, werror;
    bool warn_ignored_options; /* -Wignored-options, -Wextra, -W */
    bool warn_fp64_promotion;  /* -Wfp64-promotion, -Wall */
    bool dump_ast, dump_types, syntax_only;
    bool verbose;                   /* -v: say what host code was skipped */
    bool dep_only, dep_file;        /* -M, -MD */
    const char *dep_output;         /* -MF */
    const char *libdevice;
    const char **include_dirs;
    int include_count;
    Define *defines;
    int define_count;
    const char **sigs;              /* --sig 'NAME(type, ...)', in order */
    int sig_count;
    unsigned checks;            /* --checks: CHECK_* */
    const char *explain_types;  /* --explain-types NAME */
    int error_limit;
    DiagFormat diag_format;     /* --diagnostics-format */
};

/* Parses argv; on a usage error prints it and returns EXIT_USAGE, for
 * --help and --version prints them and returns -1, else returns 0. */
int options_parse(Options *o, int argc, char **argv);
void options_free(Options *o);

/* Exit statuses, as gcc and clang use them. */
enum { EXIT_OK = 0, EXIT_INPUT_ERROR = 1, EXIT_USAGE = 2 };

#endif
