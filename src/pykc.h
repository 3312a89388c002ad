/*
 * pykc.h - the compiler's one internal header, sectioned by the file that
 * defines each part. A compilation is a pipeline over one Unit:
 *
 *   lex_file -> parse_module -> sema_module -> cg_module -> target_emit
 *            -> manifest_write
 *
 * Everything a pass allocates for the unit lives in the unit's Arena and is
 * released at once; LLVM objects stay outside it (codegen.c, target.c).
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
/* Test hook: the Nth allocation from now on fails (0 disables). A failed
 * allocation is an internal error: pykc reports it and exits. */
void arena_fail_after(long n);

#define ARENA_NEW(a, T) ((T *)arena_alloc((a), sizeof(T)))
#define ARENA_ARRAY(a, T, n) ((T *)arena_alloc((a), sizeof(T) * (size_t)(n)))

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
} SourceFile;

/* A half-open byte range [begin, end) within one source file. */
typedef struct Span {
    int file;
    uint32_t begin, end;
} Span;

typedef enum { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE } DiagLevel;

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
} Diag;

void diag_init(Diag *d, FILE *out);
void diag_free(Diag *d);
/* Reads path whole; returns its file index, or -1 with *err set. */
int diag_load_file(Diag *d, const char *path, const char **err);
int diag_add_source(Diag *d, const char *path, const char *text, size_t size);
const SourceFile *diag_file(const Diag *d, int file);
void diag_line_col(const Diag *d, int file, uint32_t off, int *line, int *col);
void diag_error(Diag *d, Span where, const char *fmt, ...) PYKC_PRINTF(3, 4);
void diag_warning(Diag *d, Span where, const char *fmt, ...) PYKC_PRINTF(3, 4);
void diag_note(Diag *d, Span where, const char *fmt, ...) PYKC_PRINTF(3, 4);
void diag_report(Diag *d, DiagLevel level, Span where, const char *fmt, va_list ap);
/* An error that concerns no place in a source file. */
void diag_plain(Diag *d, DiagLevel level, const char *fmt, ...) PYKC_PRINTF(3, 4);
/* An internal compiler error: a bug in pykc, never in the input. */
PYKC_NORETURN void ice(const char *fmt, ...) PYKC_PRINTF(1, 2);

static inline Span span_join(Span a, Span b) {
    Span s = a;
    if (b.end > s.end) s.end = b.end;
    if (b.begin < s.begin) s.begin = b.begin;
    return s;
}

/* ---- lexer.c ---------------------------------------------------------- */

/* Token kinds, their spellings and the keyword table: ORDER TOKENS. */
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

typedef struct Token {
    TokenKind kind;
    uint32_t off, len;      /* bytes of the token in the source */
    int line, col;          /* 1-based; col counts characters */
    union {
        struct { uint64_t value; bool overflow; } i;  /* TK_INT */
        double f;                                      /* TK_FLOAT, TK_IMAG */
        struct { const char *data; size_t len; bool bytes; } s; /* TK_STRING */
    } v;
} Token;

typedef struct TokenArray {
    Token *tokens;
    int count;
} TokenArray;

/* Tokenizes a whole file into the arena; lexical errors go to diag and the
 * token stream stays well formed (it always ends in NEWLINE, DEDENTs, EOF). */
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
    /* statements */                                                           \
    X(ND_ASSIGN, "Assign") X(ND_ANNASSIGN, "AnnAssign")                        \
    X(ND_AUGASSIGN, "AugAssign") X(ND_IF, "If") X(ND_WHILE, "While")           \
    X(ND_FOR, "For") X(ND_BREAK, "Break") X(ND_CONTINUE, "Continue")           \
    X(ND_RETURN, "Return") X(ND_PASS, "Pass") X(ND_ASSERT, "Assert")           \
    X(ND_RAISE, "Raise") X(ND_EXPR_STMT, "Expr")                               \
    /* expressions */                                                          \
    X(ND_NAME, "Name") X(ND_INT, "Int") X(ND_FLOAT, "Float")                   \
    X(ND_IMAG, "Imag") X(ND_STR, "Str") X(ND_BOOL, "Bool")                     \
    X(ND_NONE, "None") X(ND_ELLIPSIS, "Ellipsis") X(ND_BINOP, "BinOp")         \
    X(ND_UNARY, "UnaryOp") X(ND_BOOLOP, "BoolOp") X(ND_COMPARE, "Compare")     \
    X(ND_IFEXP, "IfExp") X(ND_CALL, "Call") X(ND_KEYWORD, "Keyword")           \
    X(ND_ATTR, "Attribute") X(ND_SUBSCRIPT, "Subscript")                       \
    X(ND_SLICE, "Slice") X(ND_TUPLE, "Tuple") X(ND_LIST, "List")

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

typedef struct Node Node;
typedef struct Type Type;
typedef struct Sym Sym;

/* One struct for every kind, as chibicc does; which fields a kind uses is
 * written beside them. Lists are arena arrays with a count. */
struct Node {
    NodeKind kind;
    Span span;
    Type *ty;                   /* set by sema on expressions */
    Sym *sym;                   /* set by sema on names and definitions */

    const char *name;           /* Name, Attribute attr, FunctionDef, Param,
                                   Keyword, Alias (imported name), Import* module */
    const char *asname;         /* Alias: `as` name (or NULL) */
    Op op;                      /* BinOp, UnaryOp, BoolOp, AugAssign */

    Node *lhs, *rhs;            /* BinOp; Assign/AugAssign/AnnAssign target
                                   and value; Attribute/Subscript value and
                                   index; Keyword value (rhs) */
    Node *cond;                 /* If/While/IfExp/Assert test; For target */
    Node *iter;                 /* For iterable */
    Node *then, *els;           /* IfExp branches; Assert msg (then) */
    Node *annotation;           /* Param, AnnAssign; FunctionDef return */
    Node *lower, *upper, *step; /* Slice parts, each possibly NULL */
    Node *func;                 /* Call callee */

    Node **body; int body_len;      /* Module, FunctionDef, If, While, For */
    Node **orelse; int orelse_len;  /* If (elif is a nested If), While, For */
    Node **items; int item_len;     /* Tuple/List elements, Call positional
                                       args, BoolOp and Compare operands,
                                       FunctionDef params, Import* aliases,
                                       Assign targets, Return value (0/1) */
    Node **kwargs; int kwarg_len;   /* Call keywords */
    Node **decorators; int decorator_len; /* FunctionDef */
    Op *ops;                        /* Compare: item_len - 1 operators */
    int level;                      /* ImportFrom: leading dots */
    bool star;                      /* ImportFrom: `import *` */
    bool paren;                     /* Tuple written in parentheses */
    int height;                     /* expression tree height, bounded by
                                       the parser so later passes may recurse */

    union {
        struct { uint64_t value; bool overflow; } i; /* Int */
        double f;                                     /* Float, Imag */
        bool b;                                       /* Bool */
        struct { const char *data; size_t len; bool bytes; } s; /* Str */
    } v;
};

Node *node_new(Arena *a, NodeKind kind, Span span);
const char *node_kind_name(NodeKind k);
const char *op_spelling(Op op);
const char *op_name(Op op);
/* Prints the tree in the stable form that --dump-ast and the tests use. */
void ast_dump(FILE *out, const Diag *d, const Node *n);

/* ---- parser.c --------------------------------------------------------- */

/* Nesting deeper than this (brackets, operators, blocks) is an error: it
 * bounds the parser's recursion so no input overflows its stack. */
#define PYKC_MAX_NESTING 200
/* Expression trees taller than this (`a+a+...+a`, `x.y.y...`) are refused,
 * which bounds the recursion of every pass after the parser. */
#define PYKC_MAX_EXPR_HEIGHT 1000

Node *parse_module(Arena *a, Diag *d, int file, const TokenArray *toks);

/* ---- main.c ------------------------------------------------------------ */

typedef enum { EMIT_PTX, EMIT_LLVM, EMIT_CUBIN, EMIT_MANIFEST, EMIT_HEADER, EMIT_C } EmitKind;

#define PYKC_MAX_ARCHS 8

typedef struct Define {
    const char *name, *value;
} Define;

/* The command line, parsed. Lists point into argv. */
typedef struct Options {
    const char *input, *output;
    int opt_level;                  /* 0..3 */
    const char *archs[PYKC_MAX_ARCHS];
    int arch_count;
    EmitKind emit;
    bool debug_info, lineinfo, fastmath, werror;
    bool dump_ast, dump_types, syntax_only;
    bool dep_only, dep_file;        /* -M, -MD */
    const char *dep_output;         /* -MF */
    const char *libdevice;
    const char **include_dirs;
    int include_count;
    Define *defines;
    int define_count;
    int error_limit;
} Options;

/* Parses argv; on a usage error prints it and returns EXIT_USAGE, for
 * --help and --version prints them and returns -1, else returns 0. */
int options_parse(Options *o, int argc, char **argv);
void options_free(Options *o);

/* Exit statuses, as gcc and clang use them. */
enum { EXIT_OK = 0, EXIT_INPUT_ERROR = 1, EXIT_USAGE = 2 };

#endif
