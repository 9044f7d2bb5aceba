/*
 * reshape.h - the C API of Reshape.
 *
 * Reshape applies a rules document (JSON; see docs/rules.md) to JSON from quirky APIs: Firebase
 * collections to arrays, envelopes unwrapped, {} and "" to null, snake_case to camelCase. This
 * header is the authoritative reference of the C API; libreshape.so is the same engine the Swift
 * package, the Python binding and the `reshape` CLI use, so results are identical everywhere.
 *
 *     reshape_rules *rules = NULL;
 *     reshape_error err;
 *     const char *spec = "[{\"op\": \"keyedToArray\", \"idKey\": \"objectId\"}]";
 *     if (reshape_rules_new(spec, strlen(spec), &rules, &err) != RESHAPE_OK) {
 *         fprintf(stderr, "%s\n", err.message);
 *         return 1;
 *     }
 *     char *out = NULL;
 *     size_t out_len = 0;
 *     if (reshape_apply(rules, input, input_len, 0, &out, &out_len, &err) == RESHAPE_OK) {
 *         fwrite(out, 1, out_len, stdout);
 *         reshape_free(out);
 *     } else {
 *         fprintf(stderr, "%s\n", err.message);
 *     }
 *     reshape_rules_free(rules);
 *
 * reshape_apply_into() writes into a buffer of the caller's instead, as snprintf() does:
 *
 *     size_t needed = 0;
 *     if (reshape_apply_into(rules, input, input_len, 0, buf, cap, &needed, &err) == RESHAPE_BUFFER_TOO_SMALL)
 *         ... grow buf to `needed` bytes and call again ...
 *
 * Conventions, for every function:
 *   - Fallible functions return a reshape_status; details go to a caller-allocated
 *     reshape_error, which may be NULL and never needs freeing.
 *   - Outputs are written only on success (and reshape_apply_into()'s size needed on
 *     RESHAPE_BUFFER_TOO_SMALL).
 *   - Memory returned by Reshape is freed with the matching Reshape function, never with free().
 *   - Nothing is global and mutable: distinct calls never share state, except a reshape_rules
 *     the caller shares on purpose, which is immutable.
 *   - Structs the caller allocates keep their size within a major version: reshape_error grows
 *     into its reserved bytes; reshape_limits and reshape_file_options carry a version.
 *
 * Compatibility: a program runs with any library of the ABI it was built for (see
 * reshape_version_number()): before 1.0, the same major and minor version, since a 0.x minor
 * release may change the ABI (0.2 changed reshape_error's size); from 1.0 on, the same major
 * version. The SONAME says so: libreshape.so.0.MINOR before 1.0, libreshape.so.MAJOR after.
 */
#ifndef RESHAPE_H
#define RESHAPE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ==========================================================================================
 * Version
 * ========================================================================================== */

/* The version of this header. reshape_version() and reshape_version_number() give the version of
   the library loaded. RESHAPE_VERSION_NUMBER is MAJOR * 10000 + MINOR * 100 + PATCH (0.2.0 is 200),
   for comparisons in #if and at run time. */
#define RESHAPE_VERSION_MAJOR 0
#define RESHAPE_VERSION_MINOR 2
#define RESHAPE_VERSION_PATCH 0
#define RESHAPE_VERSION_STRING "0.2.0"
#define RESHAPE_VERSION_NUMBER \
    (RESHAPE_VERSION_MAJOR * 10000 + RESHAPE_VERSION_MINOR * 100 + RESHAPE_VERSION_PATCH)

/*
 * The version of the loaded library, "MAJOR.MINOR.PATCH".
 *
 * Ownership: the string is static; do not free it.
 * Thread safety: safe to call from any thread at any time.
 */
const char *reshape_version(void);

/*
 * The version of the loaded library as one number.
 *
 * Returns MAJOR * 10000 + MINOR * 100 + PATCH of the library (200 for 0.2.0): equal to
 * RESHAPE_VERSION_NUMBER when the program runs with the library of its header. A binding that
 * loads the library at run time compares it with the version it was written for: before 1.0,
 * number / 100 (major and minor) must match; from 1.0 on, number / 10000 (the major).
 *
 * Ownership: nothing to free.
 * Thread safety: safe to call from any thread at any time.
 */
unsigned reshape_version_number(void);

/* ==========================================================================================
 * Errors
 * ========================================================================================== */

/* What a call returned. The numbers are stable and never reused. */
typedef enum reshape_status {
    RESHAPE_OK = 0,
    RESHAPE_INVALID_JSON = 1,     /* the input is not valid JSON, or has a duplicate member name */
    RESHAPE_INVALID_RULES = 2,    /* the rules document is not valid JSON or breaks the contract */
    RESHAPE_RULE_FAILED = 3,      /* a rule cannot reshape a value of the input */
    RESHAPE_LIMIT_EXCEEDED = 4,   /* a work limit (see reshape_limits): the input or output nests
                                     too deep, a path reaches too many values, the output would be
                                     too large, or the rules need too much work */
    RESHAPE_INVALID_ARGUMENT = 5, /* a NULL pointer where one is required, or unknown flags */
    RESHAPE_OUT_OF_MEMORY = 6,    /* jansson could not allocate; an allocation failure inside the
                                     statically linked Swift runtime aborts, as in any Swift code */
    RESHAPE_INTERNAL = 7,         /* a bug in Reshape; please report it */
    RESHAPE_CANCELLED = 8,        /* a progress callback asked to stop (reshape_apply_file(),
                                     reshape_apply_fd()) */
    RESHAPE_BUFFER_TOO_SMALL = 9, /* reshape_apply_into(): the output does not fit in the caller's
                                     buffer, which is untouched; *out_len gives the size needed */
    RESHAPE_IO_ERROR = 10         /* a read or a write failed: a file that cannot be opened, read
                                     or written (ENOENT, EACCES, EISDIR, ENOSPC, EIO, EFBIG...), an
                                     input file that changed while it was read, or a write
                                     callback that refused the output; sys_errno and io_file in
                                     reshape_error say more, and the message names the file */
} reshape_status;

/* reshape_error.io_file: which file a RESHAPE_IO_ERROR is about. */
#define RESHAPE_IO_NONE 0   /* not a failed read or write, or neither file (a rules file) */
#define RESHAPE_IO_INPUT 1  /* the input: the file or descriptor read */
#define RESHAPE_IO_OUTPUT 2 /* the output: the file, descriptor or callback written, or the
                               temporary file that replaces out_path */

/*
 * Where and why a call failed. Allocated by the caller (on the stack is fine) and passed to the
 * call, which fills it on failure and clears it (code RESHAPE_OK, empty strings) on success.
 *
 * How it grows: sizeof(reshape_error) and the offset of every field never change within a major
 * version (1536 bytes where size_t has 64 bits, 1524 where it has 32). A later field is carved out
 * of the start of `reserved`, and is defined so that 0 (or "") means "not known" (sys_errno,
 * io_file and the source_* fields came from there). Every call that fills or clears an error zeroes `reserved`, so a
 * program built against a later header reads "not known" from this library, never garbage, and
 * this library never writes past the size a program built against this header allocated.
 */
typedef struct reshape_error {
    int code;                       /* a reshape_status */
    int rule;                       /* 1-based index of the failing rule, 0 if none */
    size_t line, column, position;  /* for JSON text that cannot be read (the input, or the rules
                                       document): 1-based line, 1-based column in Unicode
                                       scalars, 0-based byte offset; else 0 */
    char path[512];                 /* RFC 9535 normalized path of the failing value, e.g.
                                       $['users']['u1'], or "" if none; a longer path is cut at
                                       a character boundary and ends with "..." */
    char message[512];              /* one line without control characters (input's are escaped),
                                       NUL-terminated, never needs freeing: code, rule,
                                       op, path, line and column, then what went wrong, e.g.
                                       "rule_failed: rule 2 (keyedToArray) at $['users']['u1']:
                                       expected an object, found a string" */
    char op[32];                    /* the failing rule's op as rules documents spell it, e.g.
                                       "keyedToArray", NUL-terminated; "" when no rule failed
                                       (invalid JSON input, invalid arguments, the rules document
                                       as a whole) or the rule names an op Reshape does not know */
    int sys_errno;                  /* RESHAPE_IO_ERROR: the system's errno for the read or write
                                       that failed (ENOENT, ENOSPC...; strerror() gives the words
                                       the message ends with), or 0 when the failure has none (an
                                       input file that changed while it was read); else 0 */
    int io_file;                    /* RESHAPE_IO_ERROR: RESHAPE_IO_INPUT or RESHAPE_IO_OUTPUT,
                                       the file the failure is about; else RESHAPE_IO_NONE */
    char source_path[352];          /* RESHAPE_RULE_FAILED: the RFC 9535 normalized path in the
                                       input of the value the rule failed on, before the rules
                                       before it moved or renamed it, cut as `path` is; "" when
                                       not known (tracing past the work limit: see reshape_trace())
                                       or when a rule made the value in a document over 64 MiB; a
                                       stream traces its failing record itself, JSON Lines the
                                       failing line */
    size_t source_line, source_column, source_position; /* where that value starts in the input:
                                       as line, column and position; 0 when not known */
    int source_origin;              /* a RESHAPE_SOURCE_* when the source is known, else 0 */
    int source_rule;                /* the rule that made or replaced the value, or 0 */
    char source_op[32];             /* that rule's op, NUL-terminated, or "" */
    unsigned char reserved[440 - 392 - 3 * sizeof(size_t)]; /* zeroed by the library; later
                                       fields come from here */
} reshape_error;

/* reshape_error.source_origin: how the value a rule failed on came to be where it was. */
#define RESHAPE_SOURCE_INPUT 1       /* the input's value at source_path, moved or not */
#define RESHAPE_SOURCE_REPLACED 2    /* a rule's value in place of the input's at source_path */
#define RESHAPE_SOURCE_ADDED 3       /* a rule's value with no counterpart in the input */
#define RESHAPE_SOURCE_MEMBER_NAME 4 /* the member name of the input's value at source_path */
#define RESHAPE_SOURCE_REBUILT 5     /* a rule's new object holding the members of the input's
                                        value at source_path (a record keyedToArray makes) */

/*
 * The name of a status, as the other bindings and the CLI spell it: "ok", "invalid_json",
 * "invalid_rules", "rule_failed", "limit_exceeded", "invalid_argument", "out_of_memory",
 * "internal", "cancelled", "buffer_too_small", "io_error"; "unknown" for any other number.
 *
 * Ownership: the string is static; do not free it.
 * Thread safety: safe to call from any thread at any time.
 */
const char *reshape_status_name(int status);

/* ==========================================================================================
 * Limits
 * ========================================================================================== */

/*
 * The engine's work limits (docs/limits.md). Hostile input or rules cost bounded time and memory:
 * going beyond a limit is RESHAPE_LIMIT_EXCEEDED (RESHAPE_INVALID_RULES for the rules document),
 * never a crash or an abort. A field left 0 takes its default; the defaults marked "grows" grow
 * with the input, so large documents need no tuning. Any field may be raised or lowered.
 *
 * Initialize with RESHAPE_LIMITS_INIT (all defaults), then set the fields to change:
 *
 *     reshape_limits limits = RESHAPE_LIMITS_INIT;
 *     limits.max_output_bytes = 1u << 30;
 *     reshape_rules_new_with_limits(spec, spec_len, &limits, &rules, &err);
 *
 * `version` lets later releases add fields at the end: a library reads only the fields of the
 * version the caller was compiled with.
 */
#define RESHAPE_LIMITS_VERSION 1

typedef struct reshape_limits {
    unsigned int version;    /* RESHAPE_LIMITS_VERSION */
    size_t max_depth;        /* nesting of the input, the output and the rules document; 1000 */
    size_t max_rules_bytes;  /* size of the rules document; 1 MiB */
    size_t max_selected;     /* values the path of one rule may visit, counting a value once per
                                way the path reaches it; 4 million or 1 per input byte (grows) */
    size_t max_output_bytes; /* size of the output; 64 MiB or 16 per input byte (grows) */
    size_t max_work;         /* steps of work per document (values visited, renamed, moved,
                                copied or created); 100 million or 100 per input byte (grows) */
} reshape_limits;

#define RESHAPE_LIMITS_INIT {RESHAPE_LIMITS_VERSION, 0, 0, 0, 0, 0}

/* ==========================================================================================
 * Rules
 * ========================================================================================== */

/* A compiled rules document. Opaque, and immutable once built. */
typedef struct reshape_rules reshape_rules;

/*
 * Compiles a rules document: a JSON array of rules, or an object {"rules": [...]}.
 *
 * spec, spec_len: the document as UTF-8 JSON text; it need not be NUL-terminated and is not
 *   kept after the call. spec must not be NULL; spec_len 0 is an empty (invalid) document.
 * out: receives the compiled rules on success; untouched on failure.
 * err: may be NULL.
 *
 * Returns RESHAPE_OK, RESHAPE_INVALID_RULES (naming the rule, the param and a suggestion for a
 * typo; also a document larger than 1 MiB or nested deeper than 1000 levels),
 * RESHAPE_INVALID_ARGUMENT (spec or out is NULL) or RESHAPE_OUT_OF_MEMORY.
 *
 * The rules work within the default limits; see reshape_rules_new_with_limits().
 *
 * Ownership: the caller owns *out and frees it with reshape_rules_free().
 * Thread safety: safe to call from any thread at any time.
 */
reshape_status reshape_rules_new(const char *spec, size_t spec_len, reshape_rules **out, reshape_error *err);

/*
 * Compiles a rules document, as reshape_rules_new(), with other limits: for the rules document
 * itself and for every reshape_apply() with these rules.
 *
 * limits: from RESHAPE_LIMITS_INIT, with the fields to change set; NULL means the defaults. Read
 *   during the call only.
 *
 * Returns what reshape_rules_new() returns; RESHAPE_INVALID_ARGUMENT also for a limits->version
 * this library does not know (0, or newer than RESHAPE_LIMITS_VERSION of its header).
 *
 * Ownership: the caller owns *out and frees it with reshape_rules_free().
 * Thread safety: safe to call from any thread at any time.
 */
reshape_status reshape_rules_new_with_limits(const char *spec, size_t spec_len, const reshape_limits *limits,
                                             reshape_rules **out, reshape_error *err);

/*
 * Frees compiled rules. NULL is a no-op.
 *
 * Ownership: rules must come from reshape_rules_new() and must not be used afterwards.
 * Thread safety: call it once no thread uses rules any more.
 */
void reshape_rules_free(reshape_rules *rules);

/*
 * The number of rules in compiled rules.
 *
 * rules: from reshape_rules_new(); may be NULL.
 *
 * Returns the length of the rules document's list of rules; 0 for NULL.
 *
 * Ownership: rules stay the caller's; nothing to free.
 * Thread safety: any number of threads may call it with the same rules at once.
 */
size_t reshape_rules_count(const reshape_rules *rules);

/*
 * The op of one rule.
 *
 * rules: from reshape_rules_new(); may be NULL.
 * index: 0-based, in the order of the rules document (the rule a reshape_error names is index
 *   err.rule - 1, since `rule` counts from 1).
 *
 * Returns the op as rules documents spell it ("keyedToArray", "unwrap", ...); NULL when rules is
 * NULL or index is reshape_rules_count() or more.
 *
 * Ownership: the string is static: valid for the life of the process, after reshape_rules_free()
 * too; do not free it.
 * Thread safety: any number of threads may call it with the same rules at once.
 */
const char *reshape_rules_op(const reshape_rules *rules, size_t index);

/*
 * How the rules run on a large document, as `reshape check` prints it after its first line: where
 * the collection of records lies, and for each rule whether it runs per record (streaming) or
 * needs the whole document, and why. One line per rule (two groups of lines when the plan differs
 * for an object collection and an array one), each ending with "\n". For example:
 *
 *   records: the members of the object at $, or the elements of the array there
 *   rule 1 (keyedToArray) runs per record
 *
 * The text is meant for people; its wording may change between releases.
 *
 * rules: from reshape_rules_new(); may be NULL.
 *
 * Returns a new NUL-terminated string; NULL when rules is NULL.
 *
 * Ownership: the caller owns the string: free it with reshape_free(). Made anew by each call.
 * Thread safety: any number of threads may call it with the same rules at once.
 */
char *reshape_rules_plan(const reshape_rules *rules);

/* ==========================================================================================
 * Apply
 * ========================================================================================== */

/*
 * Flags for reshape_apply(), reshape_apply_into(), reshape_apply_file() and reshape_apply_fd(); 0
 * means the defaults (one JSON document in, compact output, duplicate names rejected).
 */
#define RESHAPE_PRETTY 0x1u               /* indented output: two spaces per level */
#define RESHAPE_ALLOW_DUPLICATE_KEYS 0x2u /* the last of duplicate member names wins, in the
                                             position of the first, instead of an error */
#define RESHAPE_INPUT_LINES 0x4u          /* JSON Lines in: each line is a document, reshaped on
                                             its own, its result written on a line of its own;
                                             lines of white space are skipped; an error names
                                             the line in `line` (with `column` 0 for a rule).
                                             Not with RESHAPE_PRETTY. */
#define RESHAPE_OUTPUT_LINES 0x8u         /* JSON Lines out: the resulting collection, one record
                                             per line; the result must be an array, or an object
                                             whose one member is an array, else
                                             RESHAPE_INVALID_ARGUMENT. Not with RESHAPE_PRETTY. */
#define RESHAPE_SKIP_INVALID_LINES 0x10u  /* with RESHAPE_INPUT_LINES (alone it is
                                             RESHAPE_INVALID_ARGUMENT): a line that is not valid
                                             JSON is skipped instead of failing the call; a line
                                             whose rules fail still fails it */

/*
 * Reshapes a JSON document with compiled rules.
 *
 * rules: from reshape_rules_new(); must not be NULL.
 * input, input_len: the document as UTF-8 JSON text; need not be NUL-terminated; not kept after
 *   the call. input must not be NULL; input_len 0 is an empty (invalid) document.
 * flags: RESHAPE_PRETTY, RESHAPE_ALLOW_DUPLICATE_KEYS, RESHAPE_INPUT_LINES, RESHAPE_OUTPUT_LINES,
 *   RESHAPE_SKIP_INVALID_LINES, or 0; other bits, and the combinations the flags refuse, are
 *   RESHAPE_INVALID_ARGUMENT. Inputs of 64 KiB and more that are one collection of records are
 *   reshaped record by record (on the calling thread; see reshape_apply_file() for threads),
 *   with the same result.
 * out: receives the reshaped document, UTF-8 JSON, NUL-terminated (it never contains a NUL byte
 *   of its own: U+0000 is written escaped). Untouched on failure. Must not be NULL.
 * out_len: receives its length in bytes, without the terminating NUL. May be NULL.
 * err: may be NULL.
 *
 * Returns RESHAPE_OK, RESHAPE_INVALID_JSON, RESHAPE_RULE_FAILED, RESHAPE_LIMIT_EXCEEDED (a limit
 * of the rules' reshape_limits), RESHAPE_INVALID_ARGUMENT or RESHAPE_OUT_OF_MEMORY. Every error
 * message is one line without control characters.
 *
 * Ownership: the caller owns *out and frees it with reshape_free().
 * Thread safety: any number of threads may call reshape_apply() with the same rules at once.
 */
reshape_status reshape_apply(const reshape_rules *rules, const char *input, size_t input_len, uint32_t flags,
                             char **out, size_t *out_len, reshape_error *err);

/*
 * Reshapes a JSON document, as reshape_apply() does, into a buffer of the caller's: the same
 * bytes, the same flags and the same errors, without a buffer to free. When the output does not
 * fit, nothing is written to buf and the call says how large it must be, as snprintf() does:
 * call it with buf_cap 0 to learn the size, or with a buffer kept from call to call and again
 * after growing it.
 *
 * rules, input, input_len, flags: as for reshape_apply().
 * buf, buf_cap: where the output goes and how many bytes it holds. No NUL is added (nor counted):
 *   the output is exactly *out_len bytes. buf may be NULL only when buf_cap is 0 (to ask for
 *   the size); it must not overlap input. Untouched on every failure, RESHAPE_BUFFER_TOO_SMALL
 *   included.
 * out_len: must not be NULL. Receives the output's length on success, the size needed (larger
 *   than buf_cap) on RESHAPE_BUFFER_TOO_SMALL; untouched on other failures.
 * err: may be NULL.
 *
 * Returns what reshape_apply() returns, or RESHAPE_BUFFER_TOO_SMALL when the output is larger than
 * buf_cap bytes (err then has that code and a message giving both sizes, e.g. "buffer_too_small:
 * the output has 36 bytes; the buffer holds 35"). Errors of the input or the rules come first: an
 * input that fails is reported as reshape_apply() reports it, whatever buf_cap is.
 * RESHAPE_INVALID_ARGUMENT also when out_len is NULL, when buf is NULL and buf_cap is not 0, or
 * when buf_cap is larger than any buffer can be (above PTRDIFF_MAX).
 *
 * The output is made in a buffer of the library's, as for reshape_apply(), then copied into buf
 * once it is whole and known to fit: buf is written only on success.
 *
 * Ownership: buf stays the caller's; nothing is kept after the call.
 * Thread safety: as reshape_apply(); buf must not be used by others during the call.
 */
reshape_status reshape_apply_into(const reshape_rules *rules, const char *input, size_t input_len, unsigned flags,
                                  char *buf, size_t buf_cap, size_t *out_len, reshape_error *err);

/*
 * Takes a piece of the output of reshape_apply_cb(): `size` bytes at `buffer` (never 0 bytes; at
 * most 1 MiB), valid during this call only. `data` is reshape_apply_cb()'s. Returns 0 to go on;
 * any other value stops the call (see reshape_apply_cb()).
 */
typedef int (*reshape_write_fn)(const char *buffer, size_t size, void *data);

/*
 * Reshapes a JSON document, as reshape_apply() does, handing the output to `write` in pieces, in
 * order, as it is made, instead of in one buffer (as jansson's json_dump_callback() does): the
 * same bytes, the same flags and the same errors, and no buffer to free. A document that is
 * reshaped record by record (see reshape_apply()) is never held whole by the library; one
 * reshaped whole is made in memory first, and from 16 MiB on each piece's pages are given back to
 * the system once `write` has returned, so the caller's copy and the library's are never both
 * whole.
 *
 * rules, input, input_len, flags: as for reshape_apply().
 * write: called on the calling thread with each piece; must not be NULL. It may call any
 *   function of this header, with these rules or others.
 * data: passed to every call of write; may be NULL.
 * err: may be NULL.
 *
 * Returns what reshape_apply() returns, or RESHAPE_IO_ERROR when write returned nonzero: then
 * err->io_file is RESHAPE_IO_OUTPUT and err->sys_errno is the value write returned when it is
 * positive (an errno value of the callback's choice, ENOSPC say), else 0. On failure, write has
 * received a prefix of the output, possibly empty, and nothing after the failure: discard it.
 * (An input that fails its rules, or is not valid JSON, usually fails before the first piece.)
 *
 * Ownership: input stays the caller's; each piece is the library's and valid only during its call.
 * Thread safety: as reshape_apply().
 */
reshape_status reshape_apply_cb(const reshape_rules *rules, const char *input, size_t input_len, unsigned flags,
                                reshape_write_fn write, void *data, reshape_error *err);

/* ==========================================================================================
 * Files and descriptors: streaming
 * ========================================================================================== */

/*
 * Reports progress during reshape_apply_file() and reshape_apply_fd(): `bytes_done` of the input's
 * `bytes_total` bytes are reshaped. Called on the calling thread, from time to time (about every
 * half megabyte of input; for a document reshaped whole, as it is read, before its rules run) and
 * once at the end, with bytes_done == bytes_total. bytes_total is a regular file's size (from its
 * offset); a pipe's size is not known before its end, so for a pipe it is 0 until the pipe's end
 * has been read, then the bytes read. Returning nonzero
 * cancels the call, which then returns RESHAPE_CANCELLED (the last call's return is ignored: the
 * work is done).
 */
typedef int (*reshape_progress_fn)(uint64_t bytes_done, uint64_t bytes_total, void *user_data);

/*
 * Reports a line skipped under RESHAPE_SKIP_INVALID_LINES: `err` is the error the line would have
 * ended the call with without the flag (code, message, line, column and position; err->line is the
 * line's number, from 1, blank lines counted). Called on the calling thread, in line order, before
 * the output of the lines after it is written. `err` is valid during the call only.
 */
typedef void (*reshape_skipped_fn)(const reshape_error *err, void *user_data);

/*
 * Options of reshape_apply_file(), reshape_apply_fd() and reshape_apply_with(). Initialize with
 * RESHAPE_FILE_OPTIONS_INIT, then set the fields to change. `version` lets later releases add
 * fields at the end: a library reads only the fields of the version the caller was compiled with
 * (version 1 ends with progress_data; version 2, this header's, adds skipped and skipped_data).
 */
#define RESHAPE_FILE_OPTIONS_VERSION 2

typedef struct reshape_file_options {
    unsigned version;              /* RESHAPE_FILE_OPTIONS_VERSION; set by the initializer */
    unsigned jobs;                 /* 0: one per core; at most 64 run */
    reshape_progress_fn progress;  /* may be NULL; a nonzero return cancels */
    void *progress_data;
    reshape_skipped_fn skipped;    /* version 2; may be NULL: lines are skipped unreported */
    void *skipped_data;
} reshape_file_options;

#define RESHAPE_FILE_OPTIONS_INIT { RESHAPE_FILE_OPTIONS_VERSION, 0, NULL, NULL, NULL, NULL }

/*
 * reshape_apply_cb() with options: input in memory reshaped on several threads, with progress.
 * A document that is one collection of records (see reshape_apply()) is reshaped record by
 * record on options->jobs threads (0, as RESHAPE_FILE_OPTIONS_INIT sets it: one per core; at most
 * 64 run), exactly as reshape_apply_file() reshapes it, and its output handed to `write` in order
 * as it is made; the calling thread is one of them. The output is the same bytes for any number of
 * threads. options->progress, when set, is called on the calling thread as for
 * reshape_apply_file(), with bytes_total = input_len. reshape_apply() and reshape_apply_cb() stay
 * on the calling thread alone.
 *
 * rules, input, input_len, flags, write, data, err: as for reshape_apply_cb().
 * options: may be NULL (as RESHAPE_FILE_OPTIONS_INIT: one thread per core, no progress); its
 *   version must be one this library knows, else RESHAPE_INVALID_ARGUMENT. Read during the call
 *   only.
 *
 * Returns what reshape_apply_cb() returns, or RESHAPE_CANCELLED when progress returned nonzero.
 *
 * Ownership: as reshape_apply_cb().
 * Thread safety: as reshape_apply(); the threads it starts end before it returns, and write and
 * progress are called on the calling thread only.
 */
reshape_status reshape_apply_with(const reshape_rules *rules, const char *input, size_t input_len, unsigned flags,
                                  const reshape_file_options *options, reshape_write_fn write, void *data,
                                  reshape_error *err);

/*
 * Reshapes the file at in_path into the file at out_path, streaming: the input is read a piece at
 * a time as the work goes (never mapped, never held whole), and when the document is one
 * collection of records (a Firebase object, a top-level array, an array in an envelope) records
 * are reshaped in batches on `jobs` threads and written as they are done, so memory stays bounded
 * whatever the file's size. Gives the same bytes as reshape_apply() on the file's contents, or the
 * same error.
 *
 * A changing input: an input file that shrinks, grows or is written while it is read ends the
 * call with RESHAPE_IO_ERROR (sys_errno 0, io_file RESHAPE_IO_INPUT, "io_error: input file 'x'
 * changed while it was read: it shrank from N to M bytes"): a shorter read finds a file that
 * shrank; its size and modification time, checked when its last byte is read, one that grew or
 * was written (to the few milliseconds the system keeps times to). No signal is raised: nothing of
 * the file is mapped. in_path may name a pipe or a device (see reshape_apply_fd()).
 *
 * out_path is replaced only on success, all at once (through a temporary file in its directory,
 * renamed over it; on Linux it has no name until then, so a process killed half-way leaves no
 * file behind): it keeps its permissions, owner and group, and a symbolic link's target is
 * replaced. On failure it is untouched. A device or a pipe ("/dev/null") is written as it comes,
 * and so is a descriptor the process has open named by "/dev/stdout", "/dev/fd/N" or
 * "/proc/self/fd/N" (at its position: a file opened for appending is appended to, not replaced).
 * flags: as for reshape_apply().
 * options: may be NULL (the defaults: one thread per core, no progress).
 * err: may be NULL.
 *
 * Returns what reshape_apply() returns; RESHAPE_IO_ERROR when a file cannot be opened, read or
 * written (ENOENT, EACCES, EISDIR, ENOSPC, EFBIG, EIO...: err->sys_errno, and err->io_file says
 * which file; the message names it and gives the system's reason) or the input changed while it
 * was read; RESHAPE_INVALID_ARGUMENT for an options->version this library does not know;
 * RESHAPE_CANCELLED when the progress callback returned nonzero.
 *
 * Ownership: the paths and options are read during the call only.
 * Thread safety: as reshape_apply(); two calls must not write the same out_path at once.
 */
reshape_status reshape_apply_file(const reshape_rules *rules, const char *in_path, const char *out_path,
                                  unsigned flags, const reshape_file_options *options, reshape_error *err);

/*
 * Reshapes what in_fd reads, to its end, into out_fd, as reshape_apply_file() does, writing the
 * output as it is made. A regular file is read with pread() from in_fd's offset, which it keeps;
 * a pipe, a socket or a device is read with read() as its bytes come, and parsed as they arrive:
 * the first byte that is not JSON ends the call at once (/dev/zero, a second document without
 * RESHAPE_INPUT_LINES), a collection's records are written out before the pipe ends (when the
 * writer pauses, the records read so far go out before the read waits), and memory holds the
 * records in flight, not the input; a document that needs the whole tree holds its tree. A
 * document from a pipe may be as large as the address space set aside for it (64 GiB, less where
 * the system refuses that much; beyond it RESHAPE_LIMIT_EXCEEDED); JSON Lines from a pipe may go
 * on for ever. Errors are the whole tree's, found by the stream itself (docs/streaming.md): text
 * that is not JSON ends the call at once, a rule's failure once the document has been read to
 * its end (a pipe's: when the pipe ends); a work or output limit as the stream counts it
 * (docs/limits.md). Nothing is read twice.
 * Both descriptors stay open and belong to the caller. out_fd is written at its position.
 *
 * On failure, out_fd has received a prefix of the output, possibly empty, and nothing after the
 * failure: a reader of a pipe sees a truncated document and must rely on the returned status.
 * (When the document does not stream, nothing is written before the whole output is ready.)
 *
 * Returns what reshape_apply_file() returns.
 *
 * Ownership: the descriptors stay the caller's, open; options are read during the call only.
 * Thread safety: as reshape_apply(); the descriptors must not be used by others during the call.
 */
reshape_status reshape_apply_fd(const reshape_rules *rules, int in_fd, int out_fd,
                                unsigned flags, const reshape_file_options *options, reshape_error *err);

/* ==========================================================================================
 * Tracing values to the input
 * ========================================================================================== */

/*
 * Where a value of the output was in the input, or what made it: reshapes the input once more as
 * a whole tree, following every value through each rule (a walk of the document per rule, counted
 * against the work limit), and describes the value at `path` of the output.
 *
 * rules, input, input_len, flags: as reshape_apply(); RESHAPE_INPUT_LINES is
 *   RESHAPE_INVALID_ARGUMENT (tracing takes one document).
 * path: NUL-terminated, the path of one value of the output: a normalized path such as
 *   $['users'][3]['age'], or any RFC 9535 path that selects at most one value ($.users[3].age).
 *   Must not be NULL.
 * out: receives a JSON object, NUL-terminated, with these members in this order: "origin"
 *   ("input", "replaced", "added", "memberName" or "rebuilt", as RESHAPE_SOURCE_*), "path" (the
 *   normalized path in the input; "" for "added"), "line", "column", "position" (where that
 *   value, or for "memberName" that member name, starts in the input; 0 for "added"), "rule" and
 *   "op" (the rule that made the value; 0 and "" for "input"), "renames" (an array of objects
 *   "rule", "op", "from", "to": the renamings of the member holding the value, in order), and
 *   "description" (the same in one line, as `reshape trace` prints it). Untouched on failure.
 *   Must not be NULL.
 * out_len: receives its length in bytes, without the NUL. May be NULL.
 * err: may be NULL.
 *
 * Returns RESHAPE_OK; the errors of reshape_apply() for the input; RESHAPE_INVALID_ARGUMENT when
 * path is not a path, may select several values, or selects none in the output.
 *
 * Ownership: the caller owns *out and frees it with reshape_free().
 * Thread safety: any number of threads may call reshape_trace() with the same rules at once.
 */
reshape_status reshape_trace(const reshape_rules *rules, const char *input, size_t input_len, uint32_t flags,
                             const char *path, char **out, size_t *out_len, reshape_error *err);

/*
 * What each rule does on an input (`reshape explain`; docs/rules.md, "Explaining a rules
 * document"): reshapes the input as a whole tree, following every value through each rule (a walk
 * of the document per rule, counted against the work limit).
 *
 * rules, input, input_len, flags: as reshape_apply(); RESHAPE_INPUT_LINES is
 *   RESHAPE_INVALID_ARGUMENT (one document).
 * out: receives a JSON object, NUL-terminated, with these members in this order: "rules" (per
 *   rule that ran: "rule", "op", "summary", "selected", "changed", "changes", "perRecord",
 *   "reason", "seconds", "share", and "examples", each "change", "path", "input", "before",
 *   "after"), "failure" (null, or the failing rule's "code", "message", "rule", "op", "path"),
 *   "notRun" (the rules after a failing one) and "description" (the same as text, as `reshape
 *   explain` prints it). A rule that fails is not an error of this call: it is in "failure".
 *   Untouched on failure. Must not be NULL.
 * out_len: receives its length in bytes, without the NUL. May be NULL.
 * err: may be NULL.
 *
 * Returns RESHAPE_OK; RESHAPE_INVALID_JSON, RESHAPE_LIMIT_EXCEEDED and the other errors of
 * reshape_apply() that are not a rule's failure.
 *
 * Ownership: the caller owns *out and frees it with reshape_free().
 * Thread safety: any number of threads may call reshape_explain() with the same rules at once.
 */
reshape_status reshape_explain(const reshape_rules *rules, const char *input, size_t input_len, uint32_t flags,
                               char **out, size_t *out_len, reshape_error *err);

/* ==========================================================================================
 * Rules and types from sample responses
 * ========================================================================================== */

/*
 * Proposes a rules document, and Swift and Python types for its output, from sample responses
 * of one endpoint (`reshape infer`; docs/infer.md tells how each place is decided).
 *
 * samples: UTF-8 JSON text of samples_len bytes: an array whose elements are the samples. Must
 *   not be NULL.
 * options: NULL for every default, or a NUL-terminated JSON object with any of "keys"
 *   ("camelCase", "snake_case", "kebab-case" or "keep"), "idKey" (default "id"), "name" (the
 *   member a collection at the root goes under, default "items"), "root" (the root type's
 *   name, default "Root"), "unwrap" (a boolean), "map" and "object" (arrays of paths decided
 *   by hand).
 * out: receives a JSON object, NUL-terminated, with these members in this order: "rules" (the
 *   rules document), "reasons" (an array of objects "rule", "op", "reason", one per rule),
 *   "swift" and "python" (the source of each file). Untouched on failure. Must not be NULL.
 * out_len: receives its length in bytes, without the NUL. May be NULL.
 * err: may be NULL.
 *
 * Returns RESHAPE_OK; RESHAPE_INVALID_JSON for samples that are not JSON;
 * RESHAPE_INVALID_ARGUMENT for samples that are not an array or are none, options that are not
 * as above, a "map" or "object" path that is not one or selects nothing, or a root that is not
 * a type name; the error of the proposed rules on a sample if they fail on one.
 *
 * Ownership: the caller owns *out and frees it with reshape_free().
 * Thread safety: safe to call from any thread; calls share nothing.
 */
reshape_status reshape_infer(const char *samples, size_t samples_len, const char *options, char **out,
                             size_t *out_len, reshape_error *err);

/* ==========================================================================================
 * Memory
 * ========================================================================================== */

/*
 * Frees a buffer returned by reshape_apply(), reshape_rules_plan(), reshape_trace(),
 * reshape_explain() or reshape_infer(). NULL is a no-op.
 *
 * Ownership: buffer must come from one of them and must not be used afterwards; never pass
 * it to free(), and never pass other memory here.
 * Thread safety: safe to call from any thread.
 */
void reshape_free(char *buffer);


#ifdef __cplusplus
}
#endif

#endif /* RESHAPE_H */
