/* reshape_apply_file() and reshape_apply_fd(), against the contract in include/reshape.h: the same
   bytes or the same error as reshape_apply() (every fixture, and a Firebase-style payload of a few
   MB at 1 and 4 jobs), options and NULL arguments, cancellation and progress, pipes and a moved
   offset, files that cannot be read or written, failures half-way through (the output file is
   untouched), permission bits kept, and JSON Lines in and out.

   `test_files --small` shrinks the large payloads, for the run under valgrind. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "reshape.h"
#include "test_support.h"

/* The rules of the large payload: a Firebase collection to a wrapped array, cleaned up. */
static const char *FIREBASE_RULES =
    "[{\"op\":\"keyedToArray\",\"idKey\":\"id\",\"wrapIn\":\"users\"},{\"op\":\"emptyObjectToNull\"},"
    "{\"op\":\"blankStringToNull\"},{\"op\":\"convertKeys\",\"to\":\"snake_case\"}]";

/* Records in the large payload (about 325 bytes each: 3.2 MB), and in the one cancelled half-way (which
   must stay well above the half megabyte between progress calls, even with --small). */
static size_t large_records = 10000;
static size_t cancel_records = 10000;
/* --small: under valgrind, where reshaping is some fifty times slower. */
static int small = 0;

static char temp_root[4096];

/* --- Helpers ------------------------------------------------------------------------------------ */

/* A growing text buffer. */
typedef struct text {
    char *data;
    size_t length, capacity;
} text;

static void append_bytes(text *buffer, const char *bytes, size_t length) {
    if (buffer->length + length + 1 > buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity : 4096;
        while (buffer->length + length + 1 > capacity) capacity *= 2;
        char *bigger = realloc(buffer->data, capacity);
        if (!bigger) {
            fprintf(stderr, "out of memory\n");
            abort();
        }
        buffer->data = bigger;
        buffer->capacity = capacity;
    }
    memcpy(buffer->data + buffer->length, bytes, length);
    buffer->length += length;
    buffer->data[buffer->length] = '\0';
}

static void append(text *buffer, const char *format, ...) {
    char chunk[2048];
    va_list arguments;
    va_start(arguments, format);
    int length = vsnprintf(chunk, sizeof chunk, format, arguments);
    va_end(arguments);
    append_bytes(buffer, chunk, (size_t)length);
}

static void write_bytes(const char *path, const char *data, size_t length) {
    FILE *file = fopen(path, "wb");
    CHECK(file != NULL, "cannot create %s: %s", path, strerror(errno));
    if (!file) return;
    CHECK(fwrite(data, 1, length, file) == length, "cannot write %s", path);
    CHECK(fclose(file) == 0, "cannot close %s", path);
}

static void write_text(const char *path, const char *data) {
    write_bytes(path, data, strlen(data));
}

static int file_exists(const char *path) {
    struct stat info;
    return lstat(path, &info) == 0;
}

static unsigned file_mode(const char *path) {
    struct stat info;
    if (stat(path, &info) != 0) return 0;
    return (unsigned)(info.st_mode & 07777);
}

/* The file holds exactly `expected`. */
static int file_equals(const char *path, const char *expected, size_t expected_length) {
    size_t length = 0;
    char *contents = read_file(path, &length);
    int same = contents && length == expected_length && memcmp(contents, expected, length) == 0;
    free(contents);
    return same;
}

/* Names in `dir` that look like the engine's temporary files (".NAME.reshape-XXXXXX"). */
static int temporaries_in(const char *dir) {
    DIR *directory = opendir(dir);
    if (!directory) return -1;
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir(directory))) {
        if (entry->d_name[0] == '.' && strstr(entry->d_name, ".reshape-")) {
            fprintf(stderr, "left behind: %s/%s\n", dir, entry->d_name);
            count++;
        }
    }
    closedir(directory);
    return count;
}

static int remove_entry(const char *path, const struct stat *info, int type, struct FTW *walk) {
    (void)info, (void)type, (void)walk;
    return remove(path);
}

/* A fresh directory under the test's temporary root. */
static void make_dir(char *path, size_t size, const char *name) {
    int length = snprintf(path, size, "%s/%s", temp_root, name);
    CHECK(length >= 0 && (size_t)length < size, "path too long: %s/%s", temp_root, name);
    CHECK(mkdir(path, 0755) == 0, "mkdir %s: %s", path, strerror(errno));
}

static void path_in(char *path, size_t size, const char *dir, const char *name) {
    int length = snprintf(path, size, "%s/%s", dir, name);
    CHECK(length >= 0 && (size_t)length < size, "path too long: %s/%s", dir, name);
}

/* A new folder `name` under the test's root, and the paths of in.json and out.json in it (each
   buffer `size` bytes). */
static void make_dir_with_files(char *dir, char *in_path, char *out_path, size_t size, const char *name) {
    make_dir(dir, size, name);
    path_in(in_path, size, dir, "in.json");
    path_in(out_path, size, dir, "out.json");
}

/* Compares `got` with the reshape_error `expected` field by field. */
static void check_same_error(const char *what, const reshape_error *got, const reshape_error *expected) {
    CHECK(got->code == expected->code, "%s: code %d (%s), reshape_apply gave %d (%s)", what, got->code,
          reshape_status_name(got->code), expected->code, reshape_status_name(expected->code));
    CHECK(got->rule == expected->rule, "%s: rule %d, reshape_apply gave %d", what, got->rule, expected->rule);
    CHECK(got->line == expected->line && got->column == expected->column && got->position == expected->position,
          "%s: line %zu column %zu position %zu, reshape_apply gave %zu %zu %zu", what, got->line, got->column,
          got->position, expected->line, expected->column, expected->position);
    CHECK(strcmp(got->path, expected->path) == 0, "%s: path %s, reshape_apply gave %s", what, got->path, expected->path);
    /* From a pipe as from a file: the input's text is at hand to trace a rule's failure to. */
    CHECK(strcmp(got->message, expected->message) == 0, "%s: message\n  %s\nreshape_apply gave\n  %s", what, got->message,
          expected->message);
    CHECK(got->source_origin == expected->source_origin && strcmp(got->source_path, expected->source_path) == 0 &&
              got->source_position == expected->source_position,
          "%s: source %d %s %zu, reshape_apply gave %d %s %zu", what, got->source_origin, got->source_path,
          got->source_position, expected->source_origin, expected->source_path, expected->source_position);
}

/* What reshape_apply gives: status, error, output (NULL on failure; free with reshape_free). */
typedef struct expected_result {
    int status;
    reshape_error err;
    char *out;
    size_t length;
} expected_result;

static expected_result in_memory(const reshape_rules *rules, const char *input, size_t length, unsigned flags) {
    expected_result result;
    memset(&result, 0, sizeof result);
    result.status = reshape_apply(rules, input, length, flags, &result.out, &result.length, &result.err);
    if (result.status != RESHAPE_OK) result.out = NULL;
    return result;
}

/* Writes `input` to DIR/in.json, reshapes it with reshape_apply_file into DIR/out.json (which
   must not exist) and checks the same bytes or the same error as reshape_apply, and that a
   failure created no file. Returns the status. */
static int check_file_like_memory(const char *what, const char *dir, const reshape_rules *rules, const char *input,
                                  size_t length, unsigned flags, const reshape_file_options *options) {
    char in_path[4096], out_path[4096];
    path_in(in_path, sizeof in_path, dir, "in.json");
    path_in(out_path, sizeof out_path, dir, "out.json");
    write_bytes(in_path, input, length);
    remove(out_path);

    expected_result expected = in_memory(rules, input, length, flags);
    reshape_error err;
    memset(&err, 'x', sizeof err);
    int status = reshape_apply_file(rules, in_path, out_path, flags, options, &err);
    CHECK(status == expected.status, "%s: reshape_apply_file gave %d (%s), reshape_apply %d (%s)", what, status,
          err.message, expected.status, expected.err.message);
    if (status == RESHAPE_OK && expected.status == RESHAPE_OK) {
        size_t got_length = 0;
        char *got = read_file(out_path, &got_length);
        CHECK(got && got_length == expected.length && memcmp(got, expected.out, got_length) == 0,
              "%s: the output file (%zu bytes) differs from reshape_apply's output (%zu bytes)", what, got_length,
              expected.length);
        free(got);
        CHECK(err.code == 0 && err.rule == 0 && err.line == 0 && err.column == 0 && err.position == 0 &&
                  err.path[0] == '\0' && err.message[0] == '\0',
              "%s: err not cleared on success", what);
    } else if (status != RESHAPE_OK && expected.status != RESHAPE_OK) {
        check_same_error(what, &err, &expected.err);
        CHECK(!file_exists(out_path), "%s: the output file was created on failure", what);
    }
    CHECK(temporaries_in(dir) == 0, "%s: a temporary file was left in %s", what, dir);
    reshape_free(expected.out);
    remove(in_path);
    remove(out_path);
    return status;
}

/* --- Threads feeding and draining pipes -------------------------------------------------------- */

typedef struct pipe_writer {
    pthread_t thread;
    int fd;
    const char *data;
    size_t length;
} pipe_writer;

static void *write_all(void *argument) {
    pipe_writer *writer = argument;
    size_t done = 0;
    while (done < writer->length) {
        ssize_t count = write(writer->fd, writer->data + done, writer->length - done);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) break; /* EPIPE: the reader stopped reading */
        done += (size_t)count;
    }
    close(writer->fd);
    return NULL;
}

typedef struct pipe_reader {
    pthread_t thread;
    int fd;
    text got;
} pipe_reader;

static void *read_all(void *argument) {
    pipe_reader *reader = argument;
    char chunk[65536];
    for (;;) {
        ssize_t count = read(reader->fd, chunk, sizeof chunk);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) break;
        append_bytes(&reader->got, chunk, (size_t)count);
    }
    close(reader->fd);
    return NULL;
}

/* Reshapes `input` with reshape_apply_fd. The input comes through a pipe fed by a thread when
   `in_fd` is -1, else from `in_fd`; the output goes to a pipe drained by another thread, whose
   bytes land in *received (free with free()). */
static int apply_through_pipes(const reshape_rules *rules, const char *input, size_t length, int in_fd, unsigned flags,
                               const reshape_file_options *options, reshape_error *err, text *received) {
    int in_pipe[2] = {-1, -1}, out_pipe[2];
    pipe_writer writer = {0};
    if (in_fd < 0) {
        CHECK(pipe(in_pipe) == 0, "pipe: %s", strerror(errno));
        writer.fd = in_pipe[1];
        writer.data = input;
        writer.length = length;
        pthread_create(&writer.thread, NULL, write_all, &writer);
        in_fd = in_pipe[0];
    }
    CHECK(pipe(out_pipe) == 0, "pipe: %s", strerror(errno));
    pipe_reader reader = {0};
    reader.fd = out_pipe[0];
    pthread_create(&reader.thread, NULL, read_all, &reader);

    int status = reshape_apply_fd(rules, in_fd, out_pipe[1], flags, options, err);

    close(out_pipe[1]);
    pthread_join(reader.thread, NULL);
    if (in_pipe[0] >= 0) {
        close(in_pipe[0]); /* a writer still blocked gets EPIPE */
        pthread_join(writer.thread, NULL);
    }
    *received = reader.got;
    return status;
}

/* --- The Firebase-style payload ---------------------------------------------------------------- */

enum damage { INTACT, STRING_RECORD, TRUNCATED_AFTER };

/* {"-Nq0000000-é\"ü": {...}, ...}: `records` records with unicode and escaped quotes in keys and
   values, empty objects and blank strings. With STRING_RECORD, record `at` is a string (which
   keyedToArray rejects); with TRUNCATED_AFTER the text ends right after record `at`. */
static char *firebase_payload(size_t records, enum damage damage, size_t at, size_t *length) {
    text out = {0};
    append(&out, "{");
    for (size_t index = 0; index < records; index++) {
        if (index) append(&out, ",\n");
        append(&out, "\"-Nq%07zu-\xc3\xa9\\\"\\u00fc\": ", index);
        if (damage == STRING_RECORD && index == at) {
            append(&out, "\"not a record \\\"%zu\\\"\"", index);
            continue;
        }
        append(&out,
               "{\"displayName\": \"Zo\\u00eb \\\"Z\\\" %zu\", \"emailAddress\": \"\", \"profile\": {}, "
               "\"blankSpaces\": \"   \", \"tags\": [\"a\\tb\", \"\xe6\x9d\xb1\xe4\xba\xac\", {}], \"score\": %zu.5, "
               "\"lastLogin\": {\"cityName\": \"Z\xc3\xbcrich \xf0\x9f\x98\x80\", \"zipCode\": \"\", \"geo\": {}}, "
               "\"emoji\": \"\\ud83d\\ude00\", \"nullValue\": null, \"isActive\": %s, \"quote\\\"InKey\": %zu}",
               index, index % 1000, index % 3 ? "true" : "false", index);
        if (damage == TRUNCATED_AFTER && index == at) break;
    }
    if (damage != TRUNCATED_AFTER) append(&out, "}\n");
    *length = out.length;
    return out.data;
}

/* --- 1. The same bytes as reshape_apply ---------------------------------------------------------- */

static void test_fixtures_through_files(void) {
    char dir[4096];
    make_dir(dir, sizeof dir, "fixtures");
    char **names = NULL;
    size_t count = list_fixtures(&names), compared = 0;
    CHECK(count > 100, "only %zu fixtures", count);
    for (size_t index = 0; index < count; index++) {
        fixture fixture;
        if (!load_fixture(names[index], &fixture)) {
            free_fixture(&fixture);
            continue;
        }
        reshape_rules *rules = NULL;
        if (reshape_rules_new(fixture.rules, fixture.rules_length, &rules, NULL) == RESHAPE_OK) {
            char what[512];
            snprintf(what, sizeof what, "fixture %s (file)", fixture.name);
            reshape_file_options options = RESHAPE_FILE_OPTIONS_INIT;
            options.jobs = 2;
            check_file_like_memory(what, dir, rules, fixture.input, fixture.input_length, fixture.flags, &options);

            /* The same through reshape_apply_fd: input from a pipe, output into a pipe. */
            snprintf(what, sizeof what, "fixture %s (pipes)", fixture.name);
            expected_result expected = in_memory(rules, fixture.input, fixture.input_length, fixture.flags);
            reshape_error err;
            text received = {0};
            int status = apply_through_pipes(rules, fixture.input, fixture.input_length, -1, fixture.flags, NULL, &err,
                                             &received);
            CHECK(status == expected.status, "%s: %d, reshape_apply %d", what, status, expected.status);
            if (status == RESHAPE_OK && expected.status == RESHAPE_OK) {
                CHECK(received.length == expected.length && memcmp(received.data, expected.out, expected.length) == 0,
                      "%s: received %zu bytes, reshape_apply gave %zu", what, received.length, expected.length);
            } else if (status != RESHAPE_OK && expected.status != RESHAPE_OK) {
                check_same_error(what, &err, &expected.err);
            }
            free(received.data);
            reshape_free(expected.out);
            compared++;
        }
        reshape_rules_free(rules);
        free_fixture(&fixture);
    }
    free_names(names, count);
    CHECK(compared > 100, "only %zu fixtures compared", compared);
}

static void test_large_payload_same_bytes(void) {
    char dir[4096];
    make_dir(dir, sizeof dir, "large");
    reshape_rules *rules = compile(FIREBASE_RULES);
    size_t length = 0;
    char *payload = firebase_payload(large_records, INTACT, 0, &length);

    unsigned jobs[] = {1, 4};
    for (size_t index = 0; index < sizeof jobs / sizeof *jobs; index++) {
        reshape_file_options options = RESHAPE_FILE_OPTIONS_INIT;
        options.jobs = jobs[index];
        char what[128];
        snprintf(what, sizeof what, "large payload, jobs %u", jobs[index]);
        CHECK(check_file_like_memory(what, dir, rules, payload, length, 0, &options) == RESHAPE_OK, "%s", what);
        snprintf(what, sizeof what, "large payload, pretty, jobs %u", jobs[index]);
        CHECK(check_file_like_memory(what, dir, rules, payload, length, RESHAPE_PRETTY, &options) == RESHAPE_OK, "%s", what);
        snprintf(what, sizeof what, "large payload, JSON Lines out, jobs %u", jobs[index]);
        CHECK(check_file_like_memory(what, dir, rules, payload, length, RESHAPE_OUTPUT_LINES, &options) == RESHAPE_OK, "%s",
              what);
    }
    /* The output is what the rules promise: spot-check the first record. */
    expected_result expected = in_memory(rules, payload, length, 0);
    CHECK(expected.status == RESHAPE_OK, "%s", expected.err.message);
    const char *start = "{\"users\":[{\"id\":\"-Nq0000000-\xc3\xa9\\\"\xc3\xbc\",\"display_name\":\"Zo\xc3\xab \\\"Z\\\" 0\","
                        "\"email_address\":null,\"profile\":null,\"blank_spaces\":\"   \",\"tags\":[\"a\\tb\",\"\xe6\x9d\xb1\xe4\xba\xac\",null],";
    CHECK(expected.out && strncmp(expected.out, start, strlen(start)) == 0, "the output starts %.200s", expected.out);
    reshape_free(expected.out);

    free(payload);
    reshape_rules_free(rules);
}

/* --- 2. Options and NULL arguments --------------------------------------------------------------- */

static void test_options_and_null_arguments(void) {
    char dir[4096], in_path[4096], out_path[4096];
    make_dir_with_files(dir, in_path, out_path, sizeof dir, "options");
    write_text(in_path, "{\"u1\": {\"name\": \"A\"}, \"u2\": {\"name\": \"\"}}");
    reshape_rules *rules = compile(FIREBASE_RULES);
    const char *expected = "{\"users\":[{\"id\":\"u1\",\"name\":\"A\"},{\"id\":\"u2\",\"name\":null}]}";
    reshape_error err;

    /* NULL options: the defaults. NULL err is allowed. */
    CHECK(reshape_apply_file(rules, in_path, out_path, 0, NULL, &err) == RESHAPE_OK, "NULL options: %s", err.message);
    CHECK(file_equals(out_path, expected, strlen(expected)), "NULL options: output");
    remove(out_path);
    CHECK(reshape_apply_file(rules, in_path, out_path, 0, NULL, NULL) == RESHAPE_OK, "NULL err");
    CHECK(file_equals(out_path, expected, strlen(expected)), "NULL err: output");
    remove(out_path);
    reshape_file_options defaults = RESHAPE_FILE_OPTIONS_INIT;
    CHECK(defaults.version == RESHAPE_FILE_OPTIONS_VERSION && defaults.jobs == 0 && defaults.progress == NULL &&
              defaults.progress_data == NULL && defaults.skipped == NULL && defaults.skipped_data == NULL,
          "RESHAPE_FILE_OPTIONS_INIT");
    CHECK(reshape_apply_file(rules, in_path, out_path, 0, &defaults, &err) == RESHAPE_OK, "defaults: %s", err.message);
    CHECK(file_equals(out_path, expected, strlen(expected)), "defaults: output");
    remove(out_path);

    /* Versions this library does not know. */
    unsigned versions[] = {0, 99};
    for (size_t index = 0; index < 2; index++) {
        reshape_file_options options = RESHAPE_FILE_OPTIONS_INIT;
        options.version = versions[index];
        char message[256];
        snprintf(message, sizeof message, "invalid_argument: options->version is %u; this library knows versions 1 to %d",
                 versions[index], RESHAPE_FILE_OPTIONS_VERSION);
        CHECK(reshape_apply_file(rules, in_path, out_path, 0, &options, &err) == RESHAPE_INVALID_ARGUMENT, "version %u",
              versions[index]);
        CHECK(err.code == RESHAPE_INVALID_ARGUMENT && strcmp(err.message, message) == 0, "version %u: %s", versions[index],
              err.message);
        CHECK(!file_exists(out_path), "version %u: output created", versions[index]);
        int in_fd = open(in_path, O_RDONLY), out_fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        CHECK(reshape_apply_fd(rules, in_fd, out_fd, 0, &options, &err) == RESHAPE_INVALID_ARGUMENT, "fd: version %u",
              versions[index]);
        CHECK(strcmp(err.message, message) == 0, "fd: version %u: %s", versions[index], err.message);
        close(in_fd);
        close(out_fd);
        CHECK(file_equals(out_path, "", 0), "fd: version %u: something was written", versions[index]);
        remove(out_path);
    }

    /* NULL rules and paths; negative descriptors. */
    CHECK(reshape_apply_file(NULL, in_path, out_path, 0, NULL, &err) == RESHAPE_INVALID_ARGUMENT, "NULL rules");
    CHECK(strcmp(err.message, "invalid_argument: rules must not be NULL") == 0, "%s", err.message);
    CHECK(reshape_apply_file(rules, NULL, out_path, 0, NULL, &err) == RESHAPE_INVALID_ARGUMENT, "NULL in_path");
    CHECK(strcmp(err.message, "invalid_argument: in_path must not be NULL") == 0, "%s", err.message);
    CHECK(reshape_apply_file(rules, in_path, NULL, 0, NULL, &err) == RESHAPE_INVALID_ARGUMENT, "NULL out_path");
    CHECK(strcmp(err.message, "invalid_argument: out_path must not be NULL") == 0, "%s", err.message);
    CHECK(reshape_apply_file(NULL, NULL, NULL, 0, NULL, NULL) == RESHAPE_INVALID_ARGUMENT, "all NULL");
    CHECK(!file_exists(out_path), "output created on invalid arguments");
    CHECK(reshape_apply_fd(NULL, 0, 1, 0, NULL, &err) == RESHAPE_INVALID_ARGUMENT, "fd: NULL rules");
    CHECK(strcmp(err.message, "invalid_argument: rules must not be NULL") == 0, "%s", err.message);
    CHECK(reshape_apply_fd(rules, -1, 1, 0, NULL, &err) == RESHAPE_INVALID_ARGUMENT, "in_fd -1");
    CHECK(strcmp(err.message, "invalid_argument: in_fd must be an open descriptor") == 0, "%s", err.message);
    CHECK(reshape_apply_fd(rules, 0, -1, 0, NULL, &err) == RESHAPE_INVALID_ARGUMENT, "out_fd -1");
    CHECK(strcmp(err.message, "invalid_argument: out_fd must be an open descriptor") == 0, "%s", err.message);

    /* Unknown flags, as reshape_apply. */
    CHECK(reshape_apply_file(rules, in_path, out_path, 0x40u, NULL, &err) == RESHAPE_INVALID_ARGUMENT, "unknown flag");
    CHECK(strcmp(err.message, "invalid_argument: unknown option flags 0x40") == 0, "%s", err.message);
    CHECK(!file_exists(out_path), "unknown flag: output created");
    CHECK(temporaries_in(dir) == 0, "temporaries left");

    reshape_rules_free(rules);
}

/* --- 3. Cancellation and progress ---------------------------------------------------------------- */

typedef struct progress_log {
    unsigned magic;
    int calls;
    int cancel_on_call; /* return nonzero on this call (0: never) */
    int stop_at_end;    /* return nonzero when bytes_done == bytes_total */
    int decreased;
    int total_changed;
    int total_unknown_again; /* calls whose bytes_total was 0 after one whose was not */
    uint64_t first_total, last_done, last_total;
} progress_log;

#define PROGRESS_MAGIC 0x5eca1edu

/* Calls whose user_data was not the progress_data given. */
static int progress_data_lost = 0;

static int record_progress(uint64_t bytes_done, uint64_t bytes_total, void *user_data) {
    progress_log *log = user_data;
    if (!log || log->magic != PROGRESS_MAGIC) {
        progress_data_lost++;
        return 0;
    }
    log->calls++;
    if (log->calls == 1) log->first_total = bytes_total;
    if (log->calls > 1 && bytes_done < log->last_done) log->decreased = 1;
    if (bytes_total != log->first_total) log->total_changed = 1;
    if (log->calls > 1 && log->last_total != 0 && bytes_total == 0) log->total_unknown_again++;
    log->last_done = bytes_done;
    log->last_total = bytes_total;
    if (log->stop_at_end && bytes_done == bytes_total) return 1;
    return log->cancel_on_call && log->calls == log->cancel_on_call;
}

static void check_cancelled(const char *what, int status, const reshape_error *err) {
    CHECK(status == RESHAPE_CANCELLED, "%s: status %d (%s), expected RESHAPE_CANCELLED", what, status, err->message);
    CHECK(err->code == 8 && RESHAPE_CANCELLED == 8, "%s: err.code %d", what, err->code);
    CHECK(strcmp(reshape_status_name(8), "cancelled") == 0, "reshape_status_name(8) is %s", reshape_status_name(8));
    CHECK(strncmp(err->message, "cancelled", 9) == 0, "%s: message %s", what, err->message);
    CHECK(err->rule == 0 && err->path[0] == '\0' && err->line == 0, "%s: rule %d path %s line %zu", what, err->rule,
          err->path, err->line);
}

static void test_cancellation_and_progress(void) {
    char dir[4096], in_path[4096], out_path[4096];
    make_dir_with_files(dir, in_path, out_path, sizeof dir, "cancel");
    reshape_rules *rules = compile(FIREBASE_RULES);
    size_t length = 0;
    char *payload = firebase_payload(cancel_records, INTACT, 0, &length);
    CHECK(length > 1200000, "the payload to cancel has %zu bytes", length);
    write_bytes(in_path, payload, length);
    const char *old = "old contents\n";
    unsigned jobs[] = {1, 4};

    /* Under --small only with 4 jobs: each cancelled run still reshapes a batch of records. */
    for (size_t index = small ? 1 : 0; index < 2; index++) {
        char what[128];
        reshape_error err;
        progress_log log = {PROGRESS_MAGIC, 0, 1, 0, 0, 0, 0, 0, 0, 0};
        reshape_file_options options = RESHAPE_FILE_OPTIONS_INIT;
        options.jobs = jobs[index];
        options.progress = record_progress;
        options.progress_data = &log;

        /* An existing output keeps its exact contents and mode. */
        snprintf(what, sizeof what, "cancelled into an existing file, jobs %u", jobs[index]);
        write_text(out_path, old);
        chmod(out_path, 0640);
        check_cancelled(what, reshape_apply_file(rules, in_path, out_path, 0, &options, &err), &err);
        CHECK(log.calls >= 1, "%s: the callback was not called", what);
        CHECK(log.last_done < length, "%s: cancelled at the end (%llu of %zu bytes)", what,
              (unsigned long long)log.last_done, length);
        CHECK(file_equals(out_path, old, strlen(old)), "%s: the output file changed", what);
        CHECK(file_mode(out_path) == 0640, "%s: mode %o", what, file_mode(out_path));
        CHECK(temporaries_in(dir) == 0, "%s: a temporary file was left", what);

        /* A missing output is not created. */
        snprintf(what, sizeof what, "cancelled into a new file, jobs %u", jobs[index]);
        remove(out_path);
        log.calls = 0;
        check_cancelled(what, reshape_apply_file(rules, in_path, out_path, 0, &options, &err), &err);
        CHECK(log.calls >= 1, "%s: the callback was not called", what);
        CHECK(!file_exists(out_path), "%s: the output file was created", what);
        CHECK(temporaries_in(dir) == 0, "%s: a temporary file was left", what);

        /* JSON Lines output cancels the same way. */
        snprintf(what, sizeof what, "cancelled, JSON Lines out, jobs %u", jobs[index]);
        log.calls = 0;
        check_cancelled(what, reshape_apply_file(rules, in_path, out_path, RESHAPE_OUTPUT_LINES, &options, &err), &err);
        CHECK(!file_exists(out_path), "%s: the output file was created", what);
        CHECK(temporaries_in(dir) == 0, "%s: a temporary file was left", what);
    }

    /* reshape_apply_fd cancels too, and reports progress with the same total for a regular file. */
    {
        progress_log log = {PROGRESS_MAGIC, 0, 1, 0, 0, 0, 0, 0, 0, 0};
        reshape_file_options options = RESHAPE_FILE_OPTIONS_INIT;
        options.progress = record_progress;
        options.progress_data = &log;
        reshape_error err;
        int in_fd = open(in_path, O_RDONLY);
        text received = {0};
        check_cancelled("fd cancelled", apply_through_pipes(rules, NULL, 0, in_fd, 0, &options, &err, &received), &err);
        CHECK(log.calls >= 1 && log.first_total == length, "fd cancelled: %d calls, total %llu", log.calls,
              (unsigned long long)log.first_total);
        close(in_fd);
        free(received.data);
    }

    /* A document reshaped whole (here: duplicate names allowed, which never streams) reports its
       progress while it is read, and cancels there too. */
    {
        progress_log log = {PROGRESS_MAGIC, 0, 1, 0, 0, 0, 0, 0, 0, 0};
        reshape_file_options options = RESHAPE_FILE_OPTIONS_INIT;
        options.progress = record_progress;
        options.progress_data = &log;
        reshape_error err;
        write_text(out_path, old);
        check_cancelled("whole document cancelled",
                        reshape_apply_file(rules, in_path, out_path, RESHAPE_ALLOW_DUPLICATE_KEYS, &options, &err), &err);
        CHECK(log.calls == 1 && log.last_done < length, "whole document cancelled: %d calls, at %llu of %zu bytes",
              log.calls, (unsigned long long)log.last_done, length);
        CHECK(file_equals(out_path, old, strlen(old)), "whole document cancelled: the output file changed");
        CHECK(temporaries_in(dir) == 0, "whole document cancelled: a temporary file was left");

        progress_log counted = {PROGRESS_MAGIC, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        options.progress_data = &counted;
        CHECK(reshape_apply_file(rules, in_path, out_path, RESHAPE_ALLOW_DUPLICATE_KEYS, &options, &err) == RESHAPE_OK,
              "whole document: %s", err.message);
        CHECK(counted.calls >= 3 && !counted.decreased && !counted.total_changed && counted.last_done == length,
              "whole document: %d calls, decreased %d, last %llu of %zu bytes", counted.calls, counted.decreased,
              (unsigned long long)counted.last_done, length);
        expected_result expected = in_memory(rules, payload, length, RESHAPE_ALLOW_DUPLICATE_KEYS);
        CHECK(expected.status == RESHAPE_OK && file_equals(out_path, expected.out, expected.length),
              "whole document: output");
        reshape_free(expected.out);
        remove(out_path);
    }

    /* Counting: at least once, bytes_done never decreases, the last call is done == total == size,
       and progress_data comes through. Under --small, on a smaller payload (a whole run on the
       multi-MB one takes a minute under valgrind). */
    if (small) {
        free(payload);
        payload = firebase_payload(large_records, INTACT, 0, &length);
        write_bytes(in_path, payload, length);
    }
    for (size_t index = 0; index < 2; index++) {
        char what[128];
        snprintf(what, sizeof what, "progress, jobs %u", jobs[index]);
        reshape_error err;
        progress_log log = {PROGRESS_MAGIC, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        reshape_file_options options = RESHAPE_FILE_OPTIONS_INIT;
        options.jobs = jobs[index];
        options.progress = record_progress;
        options.progress_data = &log;
        CHECK(reshape_apply_file(rules, in_path, out_path, 0, &options, &err) == RESHAPE_OK, "%s: %s", what, err.message);
        CHECK(log.calls >= 1, "%s: never called", what);
        /* "about every half megabyte of input": a multi-MB input gets calls before the last. */
        if (length > 2000000) CHECK(log.calls >= 2, "%s: called %d times for %zu bytes", what, log.calls, length);
        CHECK(!log.decreased, "%s: bytes_done decreased", what);
        CHECK(!log.total_changed, "%s: bytes_total changed", what);
        CHECK(log.last_done == length && log.last_total == length, "%s: last call %llu of %llu, input %zu bytes", what,
              (unsigned long long)log.last_done, (unsigned long long)log.last_total, length);
        expected_result expected = in_memory(rules, payload, length, 0);
        CHECK(expected.status == RESHAPE_OK && file_equals(out_path, expected.out, expected.length), "%s: output", what);
        reshape_free(expected.out);
        remove(out_path);
    }

    /* The last call's return is ignored ("the work is done"): a callback that says stop only on
       the call with bytes_done == bytes_total does not cancel, on a small input and a large one. */
    {
        char small_path[4096];
        path_in(small_path, sizeof small_path, dir, "small.json");
        write_text(small_path, "{\"u1\": {\"a\": 1}}");
        const char *paths[] = {small_path, in_path};
        for (size_t index = 0; index < 2; index++) {
            progress_log log = {PROGRESS_MAGIC, 0, 0, 1, 0, 0, 0, 0, 0, 0};
            reshape_file_options options = RESHAPE_FILE_OPTIONS_INIT;
            options.progress = record_progress;
            options.progress_data = &log;
            reshape_error err;
            CHECK(reshape_apply_file(rules, paths[index], out_path, 0, &options, &err) == RESHAPE_OK, "stop at the end: %s",
                  err.message);
            CHECK(log.calls >= 1 && log.last_done == log.last_total, "stop at the end: %d calls, last %llu of %llu", log.calls,
                  (unsigned long long)log.last_done, (unsigned long long)log.last_total);
            if (index == 0) CHECK(file_equals(out_path, "{\"users\":[{\"id\":\"u1\",\"a\":1}]}", 29), "small: output");
            remove(out_path);
        }
        remove(small_path);
    }

    CHECK(progress_data_lost == 0, "progress_data did not come through %d times", progress_data_lost);
    free(payload);
    remove(in_path);
    reshape_rules_free(rules);
}

/* --- 4. Pipes and offsets ------------------------------------------------------------------------ */

static void test_pipes_and_offsets(void) {
    char dir[4096], in_path[4096], out_path[4096];
    make_dir_with_files(dir, in_path, out_path, sizeof dir, "pipes");
    reshape_rules *rules = compile(FIREBASE_RULES);
    size_t length = 0;
    char *payload = firebase_payload(large_records, INTACT, 0, &length);
    expected_result expected = in_memory(rules, payload, length, 0);
    CHECK(expected.status == RESHAPE_OK, "%s", expected.err.message);

    unsigned jobs[] = {1, 4};
    for (size_t index = 0; index < 2; index++) {
        reshape_file_options options = RESHAPE_FILE_OPTIONS_INIT;
        options.jobs = jobs[index];
        reshape_error err;
        text received = {0};
        int status = apply_through_pipes(rules, payload, length, -1, 0, &options, &err, &received);
        CHECK(status == RESHAPE_OK, "pipes, jobs %u: %s", jobs[index], err.message);
        CHECK(received.length == expected.length && memcmp(received.data, expected.out, expected.length) == 0,
              "pipes, jobs %u: received %zu bytes, reshape_apply gave %zu", jobs[index], received.length, expected.length);
        free(received.data);
    }

    /* JSON Lines out through pipes, with progress: a pipe's size is not known before its end, so
       bytes_total is 0 until its end is read, then its size; the last call says all is done. */
    {
        expected_result lines = in_memory(rules, payload, length, RESHAPE_OUTPUT_LINES);
        CHECK(lines.status == RESHAPE_OK, "%s", lines.err.message);
        progress_log log = {PROGRESS_MAGIC, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        reshape_file_options options = RESHAPE_FILE_OPTIONS_INIT;
        options.jobs = 4;
        options.progress = record_progress;
        options.progress_data = &log;
        reshape_error err;
        text received = {0};
        int status = apply_through_pipes(rules, payload, length, -1, RESHAPE_OUTPUT_LINES, &options, &err, &received);
        CHECK(status == RESHAPE_OK, "pipes, JSON Lines out: %s", err.message);
        CHECK(received.length == lines.length && memcmp(received.data, lines.out, lines.length) == 0,
              "pipes, JSON Lines out: received %zu bytes, reshape_apply gave %zu", received.length, lines.length);
        CHECK(log.calls >= 3 && !log.decreased && (log.first_total == 0 || log.first_total == length) &&
                  log.total_unknown_again == 0 &&
                  log.last_done == length && log.last_total == length,
              "pipes, progress: %d calls, first total %llu, last %llu of %llu, input %zu bytes", log.calls,
              (unsigned long long)log.first_total, (unsigned long long)log.last_done, (unsigned long long)log.last_total, length);
        free(received.data);
        reshape_free(lines.out);
    }

    /* A regular input file read from its current offset, into a regular output file by descriptor. */
    const char *junk = "this is not JSON, skipped by lseek ";
    text shifted = {0};
    append(&shifted, "%s", junk);
    append_bytes(&shifted, payload, length);
    write_bytes(in_path, shifted.data, shifted.length);
    free(shifted.data);
    int in_fd = open(in_path, O_RDONLY);
    CHECK(lseek(in_fd, (off_t)strlen(junk), SEEK_SET) == (off_t)strlen(junk), "lseek");
    int out_fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    reshape_error err;
    CHECK(reshape_apply_fd(rules, in_fd, out_fd, 0, NULL, &err) == RESHAPE_OK, "offset %zu: %s", strlen(junk), err.message);
    close(in_fd);
    close(out_fd);
    CHECK(file_equals(out_path, expected.out, expected.length), "offset %zu: output differs", strlen(junk));

    /* A small document after an offset that is not page-aligned, into a pipe. */
    write_text(in_path, "GARBAGE{\"u1\": {\"name\": \"\"}}");
    in_fd = open(in_path, O_RDONLY);
    lseek(in_fd, 7, SEEK_SET);
    text received = {0};
    CHECK(apply_through_pipes(rules, NULL, 0, in_fd, 0, NULL, &err, &received) == RESHAPE_OK, "offset 7: %s", err.message);
    close(in_fd);
    CHECK(received.data && strcmp(received.data, "{\"users\":[{\"id\":\"u1\",\"name\":null}]}") == 0, "offset 7: %s",
          received.data ? received.data : "(nothing)");
    free(received.data);

    /* An offset at the end: an empty document, as reshape_apply says. */
    in_fd = open(in_path, O_RDONLY);
    lseek(in_fd, 0, SEEK_END);
    received = (text){0};
    expected_result empty = in_memory(rules, "", 0, 0);
    CHECK(apply_through_pipes(rules, NULL, 0, in_fd, 0, NULL, &err, &received) == empty.status, "offset at the end");
    check_same_error("offset at the end", &err, &empty.err);
    CHECK(received.length == 0, "offset at the end: %zu bytes written", received.length);
    close(in_fd);
    free(received.data);

    reshape_free(expected.out);
    free(payload);
    remove(in_path);
    remove(out_path);
    reshape_rules_free(rules);
}

/* --- 5. Files that cannot be read or written ----------------------------------------------------- */

static void test_unreadable_and_unwritable(void) {
    char dir[4096], in_path[4096], out_path[4096], message[8192];
    make_dir(dir, sizeof dir, "unwritable");
    path_in(in_path, sizeof in_path, dir, "in.json");
    write_text(in_path, "{\"u1\": {\"a\": \"\"}}");
    reshape_rules *rules = compile(FIREBASE_RULES);
    reshape_error err;

    /* Into a directory that does not exist. */
    path_in(out_path, sizeof out_path, dir, "missing/out.json");
    CHECK(reshape_apply_file(rules, in_path, out_path, 0, NULL, &err) == RESHAPE_IO_ERROR, "missing directory");
    snprintf(message, sizeof message, "io_error: cannot write output file '%s': %s", out_path, strerror(ENOENT));
    CHECK(strcmp(err.message, message) == 0, "missing directory: %s", err.message);
    CHECK(strstr(err.message, "No such file or directory") != NULL, "%s", err.message);
    CHECK(err.code == RESHAPE_IO_ERROR && err.rule == 0 && err.path[0] == '\0' && err.line == 0, "fields");
    CHECK(err.sys_errno == ENOENT && err.io_file == RESHAPE_IO_OUTPUT, "errno %d, io_file %d", err.sys_errno, err.io_file);

    /* Onto a directory. */
    path_in(out_path, sizeof out_path, dir, "a-directory");
    CHECK(mkdir(out_path, 0755) == 0, "mkdir");
    CHECK(reshape_apply_file(rules, in_path, out_path, 0, NULL, &err) == RESHAPE_IO_ERROR, "directory");
    snprintf(message, sizeof message, "io_error: cannot write output file '%s': %s", out_path, strerror(EISDIR));
    CHECK(strcmp(err.message, message) == 0, "directory: %s", err.message);
    CHECK(err.sys_errno == EISDIR && err.io_file == RESHAPE_IO_OUTPUT, "errno %d, io_file %d", err.sys_errno, err.io_file);
    struct stat info;
    CHECK(stat(out_path, &info) == 0 && S_ISDIR(info.st_mode), "the directory is still there");
    CHECK(temporaries_in(dir) == 0, "temporaries left");

    /* A device is written as it comes. */
    CHECK(reshape_apply_file(rules, in_path, "/dev/null", 0, NULL, &err) == RESHAPE_OK, "/dev/null: %s", err.message);
    CHECK(stat("/dev/null", &info) == 0 && S_ISCHR(info.st_mode), "/dev/null is still a device");
    CHECK(err.sys_errno == 0 && err.io_file == RESHAPE_IO_NONE, "a success clears sys_errno and io_file");

    /* An input that does not exist, or is a directory. */
    char missing[4096];
    path_in(missing, sizeof missing, dir, "no-such-input.json");
    path_in(out_path, sizeof out_path, dir, "out.json");
    CHECK(reshape_apply_file(rules, missing, out_path, 0, NULL, &err) == RESHAPE_IO_ERROR, "missing input");
    snprintf(message, sizeof message, "io_error: cannot read input file '%s': %s", missing, strerror(ENOENT));
    CHECK(strcmp(err.message, message) == 0, "missing input: %s", err.message);
    CHECK(err.sys_errno == ENOENT && err.io_file == RESHAPE_IO_INPUT, "errno %d, io_file %d", err.sys_errno, err.io_file);
    CHECK(!file_exists(out_path), "missing input: the output was created");

    char input_dir[4096];
    path_in(input_dir, sizeof input_dir, dir, "a-directory");
    CHECK(reshape_apply_file(rules, input_dir, out_path, 0, NULL, &err) == RESHAPE_IO_ERROR, "input is a directory");
    snprintf(message, sizeof message, "io_error: cannot read input file '%s': %s", input_dir, strerror(EISDIR));
    CHECK(strcmp(err.message, message) == 0, "input is a directory: %s", err.message);
    CHECK(err.sys_errno == EISDIR && err.io_file == RESHAPE_IO_INPUT, "errno %d, io_file %d", err.sys_errno, err.io_file);
    CHECK(!file_exists(out_path), "input is a directory: the output was created");
    CHECK(temporaries_in(dir) == 0, "temporaries left");

    /* A descriptor that cannot be written: the system's reason, and the status. */
    int in_fd = open(in_path, O_RDONLY), read_only = open(in_path, O_RDONLY);
    CHECK(reshape_apply_fd(rules, in_fd, read_only, 0, NULL, &err) == RESHAPE_IO_ERROR, "read-only out_fd");
    snprintf(message, sizeof message, "io_error: cannot write descriptor %d: %s", read_only, strerror(EBADF));
    CHECK(strcmp(err.message, message) == 0, "read-only out_fd: %s", err.message);
    CHECK(err.sys_errno == EBADF && err.io_file == RESHAPE_IO_OUTPUT, "errno %d, io_file %d", err.sys_errno, err.io_file);
    close(in_fd);
    close(read_only);

    reshape_rules_free(rules);
}

/* --- 6. Failure half-way ------------------------------------------------------------------------- */

/* The payload of records [0, count), reshaped: the output a failure's prefix must come from. */
static expected_result records_before(const reshape_rules *rules, size_t count) {
    size_t length = 0;
    char *payload = firebase_payload(count, INTACT, 0, &length);
    expected_result result = in_memory(rules, payload, length, 0);
    free(payload);
    return result;
}

static void test_failure_half_way(void) {
    char dir[4096], in_path[4096], out_path[4096];
    make_dir_with_files(dir, in_path, out_path, sizeof dir, "half-way");
    reshape_rules *rules = compile(FIREBASE_RULES);
    const char *old = "{\"old\": \"contents\"}\n";

    struct {
        const char *name;
        enum damage damage;
        size_t at;
    } cases[] = {
        {"a string record in the middle", STRING_RECORD, large_records / 2},
        {"a string record near the end", STRING_RECORD, large_records - 2},
        {"the text ends after a record in the middle", TRUNCATED_AFTER, large_records / 2},
        {"the text ends after the last record", TRUNCATED_AFTER, large_records - 1},
    };
    unsigned jobs[] = {1, 4};
    for (size_t index = 0; index < sizeof cases / sizeof *cases; index++) {
        size_t length = 0;
        char *payload = firebase_payload(large_records, cases[index].damage, cases[index].at, &length);
        write_bytes(in_path, payload, length);
        expected_result expected = in_memory(rules, payload, length, 0);
        CHECK(expected.status == (cases[index].damage == STRING_RECORD ? RESHAPE_RULE_FAILED : RESHAPE_INVALID_JSON),
              "%s: reshape_apply gave %s", cases[index].name, expected.err.message);
        if (cases[index].damage == STRING_RECORD) {
            char path[128];
            snprintf(path, sizeof path, "$['-Nq%07zu-\xc3\xa9\"\xc3\xbc']", cases[index].at);
            CHECK(expected.err.rule == 1 && strcmp(expected.err.path, path) == 0, "%s: rule %d path %s", cases[index].name,
                  expected.err.rule, expected.err.path);
        } else {
            CHECK(expected.err.position == length, "%s: position %zu of %zu", cases[index].name, expected.err.position,
                  length);
        }

        size_t good_count = cases[index].damage == STRING_RECORD ? cases[index].at : cases[index].at + 1;
        expected_result good = records_before(rules, good_count);
        CHECK(good.status == RESHAPE_OK && good.length > 2, "%s: the records before the failure", cases[index].name);

        for (size_t job = 0; job < 2; job++) {
            char what[256];
            snprintf(what, sizeof what, "%s, jobs %u", cases[index].name, jobs[job]);
            reshape_file_options options = RESHAPE_FILE_OPTIONS_INIT;
            options.jobs = jobs[job];
            reshape_error err;

            /* Into an existing file: untouched, mode kept. */
            write_text(out_path, old);
            chmod(out_path, 0640);
            int status = reshape_apply_file(rules, in_path, out_path, 0, &options, &err);
            CHECK(status == expected.status, "%s: status %d, reshape_apply %d", what, status, expected.status);
            check_same_error(what, &err, &expected.err);
            CHECK(file_equals(out_path, old, strlen(old)), "%s: the output file changed", what);
            CHECK(file_mode(out_path) == 0640, "%s: mode %o", what, file_mode(out_path));
            CHECK(temporaries_in(dir) == 0, "%s: a temporary file was left", what);

            /* Into a new file: not created. */
            remove(out_path);
            status = reshape_apply_file(rules, in_path, out_path, 0, &options, &err);
            CHECK(status == expected.status, "%s (new file): status %d", what, status);
            CHECK(!file_exists(out_path), "%s: the output file was created", what);
            CHECK(temporaries_in(dir) == 0, "%s: a temporary file was left", what);

            /* Into a pipe. The header: "On failure, out_fd has received a prefix of the output,
               possibly empty, and nothing after the failure: a reader of a pipe sees a truncated
               document and must rely on the returned status." So the reader never gets a whole
               document, and what it gets is a prefix of the output of the records before the
               failure (at most followed by the comma that would separate the next record). */
            text received = {0};
            status = apply_through_pipes(rules, payload, length, -1, 0, &options, &err, &received);
            CHECK(status == expected.status, "%s (pipe): status %d", what, status);
            check_same_error(what, &err, &expected.err);
            size_t body = good.length - 2; /* without the closing "]}" */
            CHECK(!(received.length == good.length && memcmp(received.data, good.out, good.length) == 0),
                  "%s (pipe): the reader got a complete document", what);
            int prefix = received.length <= body + 1 && memcmp(received.data ? received.data : "", good.out,
                                                               received.length <= body ? received.length : body) == 0 &&
                         (received.length <= body || received.data[body] == ',');
            CHECK(prefix, "%s (pipe): the %zu bytes received are not a prefix of the %zu bytes before the failure", what,
                  received.length, body);
            free(received.data);
        }
        reshape_free(good.out);
        reshape_free(expected.out);
        free(payload);
    }
    remove(in_path);
    remove(out_path);
    reshape_rules_free(rules);
}

/* --- 7. Permissions, links ----------------------------------------------------------------------- */

static void test_permissions_kept(void) {
    char dir[4096], in_path[4096], out_path[4096], link_path[4096];
    make_dir_with_files(dir, in_path, out_path, sizeof dir, "permissions");
    path_in(link_path, sizeof link_path, dir, "link.json");
    write_text(in_path, "{\"u1\": {\"firstName\": \"A\", \"avatar\": {}}}");
    const char *expected = "{\"users\":[{\"id\":\"u1\",\"first_name\":\"A\",\"avatar\":null}]}";
    reshape_rules *rules = compile(FIREBASE_RULES);
    reshape_error err;

    write_text(out_path, "old");
    CHECK(chmod(out_path, 0640) == 0, "chmod");
    CHECK(reshape_apply_file(rules, in_path, out_path, 0, NULL, &err) == RESHAPE_OK, "%s", err.message);
    CHECK(file_equals(out_path, expected, strlen(expected)), "output");
    CHECK(file_mode(out_path) == 0640, "mode %o after success, was 0640", file_mode(out_path));

    CHECK(chmod(out_path, 0600) == 0, "chmod");
    CHECK(reshape_apply_file(rules, in_path, out_path, RESHAPE_PRETTY, NULL, &err) == RESHAPE_OK, "%s", err.message);
    CHECK(file_mode(out_path) == 0600, "mode %o after success, was 0600", file_mode(out_path));

    /* A symbolic link: its target is replaced, and the link stays a link. */
    write_text(out_path, "old");
    CHECK(chmod(out_path, 0640) == 0, "chmod");
    CHECK(symlink("out.json", link_path) == 0, "symlink: %s", strerror(errno));
    CHECK(reshape_apply_file(rules, in_path, link_path, 0, NULL, &err) == RESHAPE_OK, "link: %s", err.message);
    struct stat info;
    CHECK(lstat(link_path, &info) == 0 && S_ISLNK(info.st_mode), "the link is no longer a link");
    CHECK(file_equals(out_path, expected, strlen(expected)), "the link's target was not replaced");
    CHECK(file_mode(out_path) == 0640, "link target mode %o", file_mode(out_path));
    CHECK(temporaries_in(dir) == 0, "temporaries left");

    reshape_rules_free(rules);
}

/* --- 8. JSON Lines ------------------------------------------------------------------------------- */

/* Reshapes `input` with reshape_apply_file and `flags`; checks it against reshape_apply and
   against `expected_output` (or `expected_status`); returns the file call's error in *err. */
static void check_lines(const char *what, const char *dir, const char *spec, const char *input, unsigned flags,
                        int expected_status, const char *expected_output, reshape_error *err) {
    char in_path[4096], out_path[4096];
    path_in(in_path, sizeof in_path, dir, "in.jsonl");
    path_in(out_path, sizeof out_path, dir, "out.jsonl");
    write_text(in_path, input);
    remove(out_path);
    reshape_rules *rules = compile(spec);
    expected_result memory = in_memory(rules, input, strlen(input), flags);
    int status = reshape_apply_file(rules, in_path, out_path, flags, NULL, err);
    CHECK(status == expected_status, "%s: status %d (%s), expected %d", what, status, err->message, expected_status);
    CHECK(memory.status == expected_status, "%s: reshape_apply gave %d (%s), expected %d", what, memory.status,
          memory.err.message, expected_status);
    if (status == RESHAPE_OK) {
        size_t length = 0;
        char *got = read_file(out_path, &length);
        CHECK(got && strcmp(got, expected_output) == 0, "%s: output\n%s\nexpected\n%s", what, got ? got : "(none)",
              expected_output);
        free(got);
    } else {
        CHECK(!file_exists(out_path), "%s: the output file was created", what);
    }
    if (memory.status == RESHAPE_OK && expected_output) {
        CHECK(strcmp(memory.out, expected_output) == 0, "%s: reshape_apply output\n%s\nexpected\n%s", what, memory.out,
              expected_output);
    } else if (status != RESHAPE_OK && memory.status != RESHAPE_OK) {
        check_same_error(what, err, &memory.err);
    }
    CHECK(temporaries_in(dir) == 0, "%s: temporaries left", what);
    reshape_free(memory.out);
    reshape_rules_free(rules);
    remove(in_path);
    remove(out_path);
}

/* What note_skipped saw. */
typedef struct skipped_lines {
    int count;
    int on_caller;
    size_t lines[4];
    size_t columns[4];
    int codes[4];
    char first_message[512];
} skipped_lines;

static void note_skipped(const reshape_error *err, void *data) {
    skipped_lines *seen = data;
    if (seen->count == 0) snprintf(seen->first_message, sizeof seen->first_message, "%s", err->message);
    if (seen->count < 4) {
        seen->lines[seen->count] = err->line;
        seen->columns[seen->count] = err->column;
        seen->codes[seen->count] = err->code;
    }
    if (gettid() == getpid()) seen->on_caller++;
    seen->count++;
}

/* reshape_write_fn appending to a `text`. */
static int append_output(const char *buffer, size_t size, void *data) {
    append_bytes(data, buffer, size);
    return 0;
}

static void test_json_lines(void) {
    char dir[4096];
    make_dir(dir, sizeof dir, "lines");
    reshape_error err;
    const char *clean = "[{\"op\":\"blankStringToNull\"},{\"op\":\"convertKeys\"}]";

    check_lines("lines in", dir, clean, "{\"first_name\": \"A\"}\n  \n{\"first_name\": \"\"}\n[1, \"\"]\n", RESHAPE_INPUT_LINES,
                RESHAPE_OK, "{\"firstName\":\"A\"}\n{\"firstName\":null}\n[1,null]\n", &err);
    check_lines("lines in, no final newline", dir, clean, "{\"a\": 1}\n{\"b\": 2}", RESHAPE_INPUT_LINES, RESHAPE_OK,
                "{\"a\":1}\n{\"b\":2}\n", &err);

    const char *bad = "{\"a\": 1}\n{\"b\": 2}\n{\"c\": }\n{\"d\": 4}\n";
    check_lines("a bad line", dir, clean, bad, RESHAPE_INPUT_LINES, RESHAPE_INVALID_JSON, NULL, &err);
    CHECK(err.code == RESHAPE_INVALID_JSON && err.line == 3, "a bad line: line %zu (%s)", err.line, err.message);
    CHECK(err.column == 7 && err.position == 24, "a bad line: column %zu position %zu (%s)", err.column, err.position,
          err.message);
    check_lines("a bad line skipped", dir, clean, bad, RESHAPE_INPUT_LINES | RESHAPE_SKIP_INVALID_LINES, RESHAPE_OK,
                "{\"a\":1}\n{\"b\":2}\n{\"d\":4}\n", &err);

    /* Each skipped line reported, in order, on the calling thread, as the error it would have
       ended the call with; with version 1 options (no skipped field), skipped unreported. */
    {
        reshape_rules *plain = compile(clean);
        char in_path[4096], out_path[4096];
        path_in(in_path, sizeof in_path, dir, "in.json");
        path_in(out_path, sizeof out_path, dir, "out.json");
        const char *two_bad = "{\"a\": 1}\nnope\n\n{\"c\": }\n{\"d\": 4}\n";
        write_bytes(in_path, two_bad, strlen(two_bad));
        skipped_lines seen;
        memset(&seen, 0, sizeof seen);
        reshape_file_options options = RESHAPE_FILE_OPTIONS_INIT;
        options.skipped = note_skipped;
        options.skipped_data = &seen;
        options.jobs = 2;
        CHECK(reshape_apply_file(plain, in_path, out_path, RESHAPE_INPUT_LINES | RESHAPE_SKIP_INVALID_LINES, &options,
                                 &err) == RESHAPE_OK,
              "skipped lines reported: %s", err.message);
        CHECK(file_equals(out_path, "{\"a\":1}\n{\"d\":4}\n", 16), "skipped lines reported: output");
        CHECK(seen.count == 2 && seen.lines[0] == 2 && seen.lines[1] == 4, "skipped: %d calls, lines %zu, %zu", seen.count,
              seen.lines[0], seen.lines[1]);
        CHECK(seen.codes[0] == RESHAPE_INVALID_JSON && seen.columns[1] == 7 && seen.on_caller == seen.count,
              "skipped: code %d, column %zu, %d of %d on the calling thread", seen.codes[0], seen.columns[1],
              seen.on_caller, seen.count);
        CHECK(strcmp(seen.first_message, "invalid_json: line 2, column 1: invalid literal, expected 'null'") == 0, "skipped: %s",
              seen.first_message);

        /* Through reshape_apply_with, the same reports. */
        memset(&seen, 0, sizeof seen);
        text out = {0};
        CHECK(reshape_apply_with(plain, two_bad, strlen(two_bad), RESHAPE_INPUT_LINES | RESHAPE_SKIP_INVALID_LINES,
                                 &options, append_output, &out, &err) == RESHAPE_OK,
              "apply_with skipping: %s", err.message);
        CHECK(seen.count == 2 && seen.lines[0] == 2 && seen.lines[1] == 4, "apply_with skipped: %d", seen.count);
        free(out.data);

        /* A version 1 caller's struct ends before `skipped`: what follows it is not read. */
        struct {
            reshape_file_options v1;
        } padded;
        memset(&padded, 0, sizeof padded);
        padded.v1.version = 1;
        padded.v1.skipped = (reshape_skipped_fn)(uintptr_t)1; /* would crash if called */
        padded.v1.skipped_data = &seen;
        remove(out_path);
        CHECK(reshape_apply_file(plain, in_path, out_path, RESHAPE_INPUT_LINES | RESHAPE_SKIP_INVALID_LINES, &padded.v1,
                                 &err) == RESHAPE_OK,
              "version 1 options: %s", err.message);
        reshape_rules_free(plain);
    }

    /* A rule that fails on a line names the line, with column 0. */
    check_lines("a line a rule rejects", dir, "[{\"op\":\"keyedToArray\"}]", "{\"u1\": {}}\n\n{\"u2\": 7}\n",
                RESHAPE_INPUT_LINES | RESHAPE_SKIP_INVALID_LINES, RESHAPE_RULE_FAILED, NULL, &err);
    CHECK(err.line == 3 && err.column == 0 && err.rule == 1 && strcmp(err.path, "$['u2']") == 0,
          "a line a rule rejects: line %zu column %zu rule %d path %s", err.line, err.column, err.rule, err.path);

    /* JSON Lines out: one record per line. */
    const char *keyed = "[{\"op\":\"keyedToArray\",\"idKey\":\"id\",\"wrapIn\":\"users\"}]";
    check_lines("lines out", dir, keyed, "{\"u1\": {\"n\": 1}, \"u2\": {\"n\": \"\\u00e9\"}, \"u3\": {}}", RESHAPE_OUTPUT_LINES,
                RESHAPE_OK, "{\"id\":\"u1\",\"n\":1}\n{\"id\":\"u2\",\"n\":\"\xc3\xa9\"}\n{\"id\":\"u3\"}\n", &err);
    check_lines("lines out, a top-level array", dir, "[]", "[1, {\"a\": [2]}, \"x\"]", RESHAPE_OUTPUT_LINES, RESHAPE_OK,
                "1\n{\"a\":[2]}\n\"x\"\n", &err);
    check_lines("lines out, an empty collection", dir, keyed, "{}", RESHAPE_OUTPUT_LINES, RESHAPE_OK, "", &err);

    check_lines("lines out, not a collection", dir, "[]", "{\"a\": [1], \"b\": [2]}", RESHAPE_OUTPUT_LINES,
                RESHAPE_INVALID_ARGUMENT, NULL, &err);
    CHECK(strcmp(err.message, "invalid_argument: JSON Lines output needs the result to be an array, or an object whose one "
                              "member is an array") == 0,
          "%s", err.message);
    check_lines("lines out, a number", dir, "[]", "42", RESHAPE_OUTPUT_LINES, RESHAPE_INVALID_ARGUMENT, NULL, &err);
    check_lines("lines out, an object of a non-array", dir, "[]", "{\"a\": {}}", RESHAPE_OUTPUT_LINES,
                RESHAPE_INVALID_ARGUMENT, NULL, &err);

    check_lines("pretty lines out", dir, keyed, "{\"u1\": {}}", RESHAPE_PRETTY | RESHAPE_OUTPUT_LINES,
                RESHAPE_INVALID_ARGUMENT, NULL, &err);
    CHECK(strcmp(err.message, "invalid_argument: pretty output cannot be JSON Lines") == 0, "%s", err.message);
    check_lines("pretty lines in", dir, keyed, "{\"u1\": {}}\n", RESHAPE_PRETTY | RESHAPE_INPUT_LINES,
                RESHAPE_INVALID_ARGUMENT, NULL, &err);

    /* Through pipes, as through files. */
    reshape_rules *rules = compile(clean);
    text received = {0};
    CHECK(apply_through_pipes(rules, bad, strlen(bad), -1, RESHAPE_INPUT_LINES | RESHAPE_SKIP_INVALID_LINES, NULL, &err,
                              &received) == RESHAPE_OK,
          "lines through pipes: %s", err.message);
    CHECK(received.data && strcmp(received.data, "{\"a\":1}\n{\"b\":2}\n{\"d\":4}\n") == 0, "lines through pipes: %s",
          received.data ? received.data : "(nothing)");
    free(received.data);
    reshape_rules_free(rules);

    /* Many lines, more than a megabyte of output, the same as reshape_apply; some lines are not
       JSON, the first of them on line 8. */
    rules = compile(FIREBASE_RULES);
    text lines = {0};
    for (size_t index = 0; index < large_records / 4; index++) {
        size_t length = 0;
        char *record = firebase_payload(3, INTACT, 0, &length);
        record[length - 1] = '\n'; /* one document per line */
        for (size_t at = 0; at + 1 < length; at++) if (record[at] == '\n') record[at] = ' ';
        append_bytes(&lines, record, length);
        if (index % 101 == 7) append(&lines, "{\"broken\": \n");
        free(record);
    }
    int status = check_file_like_memory("many lines, skipping", dir, rules, lines.data, lines.length,
                                        RESHAPE_INPUT_LINES | RESHAPE_SKIP_INVALID_LINES, NULL);
    CHECK(status == RESHAPE_OK, "many lines, skipping: %d", status);
    status = check_file_like_memory("many lines, failing", dir, rules, lines.data, lines.length, RESHAPE_INPUT_LINES, NULL);
    CHECK(status == RESHAPE_INVALID_JSON, "many lines, failing: %d", status);
    free(lines.data);
    reshape_rules_free(rules);
}

/* --------------------------------------------------------------------------------------------- */

/* Runs one group of tests and says how long it took. */
static void run(const char *name, void (*test)(void)) {
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    int failures = test_failures;
    test();
    clock_gettime(CLOCK_MONOTONIC, &end);
    printf("%-40s %6.2f s%s\n", name, (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9,
           test_failures > failures ? "  FAILED" : "");
    fflush(stdout);
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--small") == 0) {
        small = 1;
        large_records = 600;
        cancel_records = 4000;
    }
    signal(SIGPIPE, SIG_IGN);
    umask(022);
    const char *tmp = getenv("TMPDIR");
    snprintf(temp_root, sizeof temp_root, "%s/reshape-test-files-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(temp_root)) {
        fprintf(stderr, "mkdtemp %s: %s\n", temp_root, strerror(errno));
        return 1;
    }

    run("options and NULL arguments", test_options_and_null_arguments);
    run("unreadable and unwritable files", test_unreadable_and_unwritable);
    run("permissions and links", test_permissions_kept);
    run("JSON Lines", test_json_lines);
    run("every fixture through files and pipes", test_fixtures_through_files);
    run("a large payload, the same bytes", test_large_payload_same_bytes);
    run("pipes and offsets", test_pipes_and_offsets);
    run("cancellation and progress", test_cancellation_and_progress);
    run("failure half-way", test_failure_half_way);

    nftw(temp_root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return test_exit_status("test_files");
}
