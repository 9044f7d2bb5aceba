/* Faults around files and pipes (issue 21's table), each run where a fault would show: the read
   or write in a child process that must end with a coded error, never a signal, and within a
   deadline (alarm), with nothing written in place of the output file.

   - an input file that shrinks, grows or is written while it is read, at 1 and 4 jobs;
   - /dev/zero and /dev/urandom as input, and an endless pipe of documents without JSON Lines;
   - an endless collection from a pipe, whose records must come out while it goes on;
   - a full disk (a tmpfs of 1 MiB when run as root) and a file size limit (RLIMIT_FSIZE with
     SIGXFSZ ignored: EFBIG), both io_error with the system's errno. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "reshape.h"
#include "test_support.h"

static const char *RULES = "[{\"op\":\"keyedToArray\",\"idKey\":\"id\",\"wrapIn\":\"users\"},{\"op\":\"emptyObjectToNull\"}]";

static char root[1024];

/* What a child reports back through a pipe: the status and the error. */
typedef struct outcome {
    int exited;      /* 1 when the child exited (its status is `status`), 0 on a signal */
    int signal;      /* the signal that ended it, or 0 */
    int status;      /* the reshape_status the child's call returned */
    reshape_error err;
} outcome;

/* A Firebase export of `records` records (about 120 bytes each). The caller frees it. */
static char *payload(size_t records, size_t *length) {
    size_t capacity = records * 160 + 16, used = 0;
    char *text = malloc(capacity);
    if (!text) abort();
    used += (size_t)snprintf(text + used, capacity - used, "{");
    for (size_t index = 0; index < records; index++) {
        used += (size_t)snprintf(text + used, capacity - used,
                                 "%s\"-Nx%08zu\": {\"name\": \"user %zu\", \"avatar\": {}, \"tags\": [\"a\", \"b\"], \"n\": %zu}",
                                 index ? "," : "", index, index, index * 7);
    }
    used += (size_t)snprintf(text + used, capacity - used, "}");
    *length = used;
    return text;
}

static void write_file(const char *path, const char *data, size_t length) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0, "create %s: %s", path, strerror(errno));
    size_t done = 0;
    while (fd >= 0 && done < length) {
        ssize_t written = write(fd, data + done, length - done);
        if (written <= 0) break;
        done += (size_t)written;
    }
    CHECK(done == length, "write %s", path);
    if (fd >= 0) close(fd);
}

static int read_all(int fd, void *buffer, size_t size) {
    size_t done = 0;
    while (done < size) {
        ssize_t got = read(fd, (char *)buffer + done, size - done);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return 0;
        done += (size_t)got;
    }
    return 1;
}

/* Runs `body` in a child process with a deadline of `seconds`; the child sends its status and
   error back. A child that ends by a signal (SIGBUS, SIGALRM for the deadline...) is reported as
   such. */
static outcome in_child(int (*body)(void *, reshape_error *), void *argument, unsigned seconds) {
    outcome result;
    memset(&result, 0, sizeof result);
    int ends[2];
    if (pipe(ends) != 0) abort();
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        close(ends[0]);
        alarm(seconds);
        reshape_error err;
        memset(&err, 0, sizeof err);
        int status = body(argument, &err);
        if (write(ends[1], &status, sizeof status) != sizeof status || write(ends[1], &err, sizeof err) != sizeof err) _exit(98);
        _exit(0);
    }
    close(ends[1]);
    int got = read_all(ends[0], &result.status, sizeof result.status) && read_all(ends[0], &result.err, sizeof result.err);
    close(ends[0]);
    int wait_status = 0;
    while (waitpid(child, &wait_status, 0) < 0 && errno == EINTR) {}
    if (WIFSIGNALED(wait_status)) {
        result.signal = WTERMSIG(wait_status);
    } else {
        result.exited = got && WEXITSTATUS(wait_status) == 0;
    }
    return result;
}

static int count_entries(const char *dir) {
    char command[8192];
    snprintf(command, sizeof command, "ls -A '%s' | wc -l", dir);
    FILE *listing = popen(command, "r");
    int count = -1;
    if (listing) {
        if (fscanf(listing, "%d", &count) != 1) count = -1;
        pclose(listing);
    }
    return count;
}

/* --- 1. An input file that changes while it is read -------------------------------------------- */

enum change { SHRINKS, GROWS, IS_WRITTEN };

typedef struct changing {
    const char *in_path, *out_path;
    enum change change;
    unsigned jobs;
    int to_parent, from_parent; /* the child tells the parent it has begun; the parent answers */
    int calls;
} changing;

/* The first progress report: the file is read in part. The parent changes it, then answers. */
static int on_progress(uint64_t done, uint64_t total, void *data) {
    changing *state = data;
    (void)done;
    (void)total;
    if (state->calls++ == 0) {
        char byte = 1;
        if (write(state->to_parent, &byte, 1) != 1 || read(state->from_parent, &byte, 1) != 1) _exit(97);
    }
    return 0;
}

static int apply_while_changing(void *argument, reshape_error *err) {
    changing *state = argument;
    reshape_rules *rules = NULL;
    if (reshape_rules_new(RULES, strlen(RULES), &rules, err) != RESHAPE_OK) return -1;
    reshape_file_options options = RESHAPE_FILE_OPTIONS_INIT;
    options.jobs = state->jobs;
    options.progress = on_progress;
    options.progress_data = state;
    int status = reshape_apply_file(rules, state->in_path, state->out_path, 0, &options, err);
    reshape_rules_free(rules);
    return status;
}

static void test_changing_input(void) {
    char dir[2048], in_path[4096], out_path[4096];
    snprintf(dir, sizeof dir, "%s/changing", root);
    mkdir(dir, 0755);
    snprintf(in_path, sizeof in_path, "%s/in.json", dir);
    snprintf(out_path, sizeof out_path, "%s/out.json", dir);
    size_t length = 0;
    char *input = payload(200000, &length); /* 16 MB: many reads, many progress reports */
    const char *names[] = {"shrinks", "grows", "is written"};
    const char *how[] = {"it shrank from", "it grew from", "it was written to"};
    unsigned jobs[] = {1, 4};
    for (int change = SHRINKS; change <= IS_WRITTEN; change++) {
        for (size_t j = 0; j < 2; j++) {
            write_file(in_path, input, length);
            write_file(out_path, "old", 3);
            int up[2], down[2];
            if (pipe(up) != 0 || pipe(down) != 0) abort();
            changing state = {in_path, out_path, (enum change)change, jobs[j], up[1], down[0], 0};
            fflush(NULL);
            pid_t parent_side = fork();
            if (parent_side == 0) {
                /* The one who changes the file: waits for the child's first report. */
                close(up[1]);
                close(down[0]);
                char byte;
                if (read(up[0], &byte, 1) != 1) _exit(0);
                if (change == SHRINKS) {
                    if (truncate(in_path, (off_t)(length / 2)) != 0) _exit(1);
                } else if (change == GROWS) {
                    int fd = open(in_path, O_WRONLY | O_APPEND);
                    if (fd < 0 || write(fd, " ", 1) != 1) _exit(1);
                    close(fd);
                } else {
                    /* Past the file system's clock step, so that the time changes too. */
                    struct timespec pause = {0, 50 * 1000 * 1000};
                    nanosleep(&pause, NULL);
                    int fd = open(in_path, O_WRONLY);
                    if (fd < 0 || pwrite(fd, "{", 1, 0) != 1) _exit(1);
                    close(fd);
                }
                if (write(down[1], &byte, 1) != 1) _exit(1);
                _exit(0);
            }
            outcome result = in_child(apply_while_changing, &state, 60);
            close(up[0]);
            close(up[1]);
            close(down[0]);
            close(down[1]);
            int changer = 0;
            waitpid(parent_side, &changer, 0);
            CHECK(WIFEXITED(changer) && WEXITSTATUS(changer) == 0, "%s: the file could not be changed", names[change]);
            CHECK(result.signal == 0, "%s, jobs %u: the process died of signal %d", names[change], jobs[j], result.signal);
            CHECK(result.exited && result.status == RESHAPE_IO_ERROR, "%s, jobs %u: status %d: %s", names[change], jobs[j],
                  result.status, result.err.message);
            char expected[8192];
            snprintf(expected, sizeof expected, "io_error: input file '%s' changed while it was read: %s", in_path, how[change]);
            CHECK(strncmp(result.err.message, expected, strlen(expected)) == 0, "%s: %s", names[change], result.err.message);
            CHECK(result.err.sys_errno == 0 && result.err.io_file == RESHAPE_IO_INPUT, "%s: errno %d, io_file %d",
                  names[change], result.err.sys_errno, result.err.io_file);
            size_t old_length = 0;
            char *old = read_file(out_path, &old_length);
            CHECK(old && strcmp(old, "old") == 0, "%s: the output file was touched", names[change]);
            free(old);
            CHECK(count_entries(dir) == 2, "%s: files left behind", names[change]);
        }
    }
    free(input);
}

/* --- 2. Endless and random input ----------------------------------------------------------------- */

static int apply_path(void *argument, reshape_error *err) {
    const char *in_path = argument;
    reshape_rules *rules = NULL;
    if (reshape_rules_new(RULES, strlen(RULES), &rules, err) != RESHAPE_OK) return -1;
    int status = reshape_apply_file(rules, in_path, "/dev/null", 0, NULL, err);
    reshape_rules_free(rules);
    return status;
}

/* Feeds `line` to a pipe for ever (until its reader goes); returns the read end. */
static int endless_pipe(const char *first, const char *line, pid_t *writer) {
    int ends[2];
    if (pipe(ends) != 0) abort();
    fflush(NULL);
    *writer = fork();
    if (*writer == 0) {
        close(ends[0]);
        signal(SIGPIPE, SIG_DFL);
        size_t first_length = strlen(first), length = strlen(line);
        if (first_length && write(ends[1], first, first_length) < 0) _exit(0);
        for (;;) {
            if (write(ends[1], line, length) < 0) _exit(0);
        }
    }
    close(ends[1]);
    return ends[0];
}

typedef struct from_pipe {
    int in_fd, out_fd;
} from_pipe;

static int apply_descriptor(void *argument, reshape_error *err) {
    from_pipe *fds = argument;
    reshape_rules *rules = NULL;
    if (reshape_rules_new(RULES, strlen(RULES), &rules, err) != RESHAPE_OK) return -1;
    int status = reshape_apply_fd(rules, fds->in_fd, fds->out_fd, 0, NULL, err);
    reshape_rules_free(rules);
    return status;
}

static void test_endless_input(void) {
    outcome zero = in_child(apply_path, "/dev/zero", 10);
    CHECK(zero.signal == 0 && zero.exited && zero.status == RESHAPE_INVALID_JSON, "/dev/zero: signal %d, status %d: %s",
          zero.signal, zero.status, zero.err.message);
    CHECK(strcmp(zero.err.message, "invalid_json: line 1, column 1: expected a value, found byte 0x00") == 0, "/dev/zero: %s",
          zero.err.message);

    outcome random = in_child(apply_path, "/dev/urandom", 10);
    CHECK(random.signal == 0 && random.exited && random.status == RESHAPE_INVALID_JSON, "/dev/urandom: signal %d, status %d: %s",
          random.signal, random.status, random.err.message);

    /* `yes '{"a": {}}' | ...` without JSON Lines: the second document is the error, at once. */
    pid_t writer = 0;
    int read_end = endless_pipe("", "{\"a\": {}}\n", &writer);
    from_pipe fds = {read_end, open("/dev/null", O_WRONLY)};
    outcome documents = in_child(apply_descriptor, &fds, 10);
    kill(writer, SIGKILL);
    waitpid(writer, NULL, 0);
    close(read_end);
    close(fds.out_fd);
    CHECK(documents.signal == 0 && documents.exited && documents.status == RESHAPE_INVALID_JSON,
          "endless documents: signal %d, status %d: %s", documents.signal, documents.status, documents.err.message);
    CHECK(strcmp(documents.err.message, "invalid_json: line 2, column 1: unexpected '{' after the JSON value") == 0,
          "endless documents: %s", documents.err.message);

    /* An endless collection streams: its records come out while the pipe goes on. */
    int out[2];
    if (pipe(out) != 0) abort();
    char record[64];
    read_end = -1;
    {
        /* Distinct names (a duplicate would end it): a writer that numbers its records. */
        int ends[2];
        if (pipe(ends) != 0) abort();
        fflush(NULL);
        writer = fork();
        if (writer == 0) {
            close(ends[0]);
            close(out[0]);
            close(out[1]);
            if (write(ends[1], "{", 1) != 1) _exit(0);
            for (unsigned long index = 0;; index++) {
                int length = snprintf(record, sizeof record, "\"-Nx%012lu\": {\"e\": {}},", index);
                if (write(ends[1], record, (size_t)length) < 0) _exit(0);
            }
        }
        close(ends[1]);
        read_end = ends[0];
    }
    fflush(NULL);
    pid_t reshaper = fork();
    if (reshaper == 0) {
        close(out[0]);
        from_pipe child_fds = {read_end, out[1]};
        reshape_error err;
        apply_descriptor(&child_fds, &err);
        _exit(0);
    }
    close(read_end);
    close(out[1]);
    char buffer[65536];
    /* The output's start, gathered across reads: the text before the records may come alone. */
    const char *first = "{\"users\":[{\"id\":\"-Nx000000000000\",\"e\":null},";
    char head[64] = {0};
    size_t received = 0;
    alarm(30);
    while (received < (4u << 20)) {
        ssize_t got = read(out[0], buffer, sizeof buffer);
        if (got <= 0) break;
        if (received < sizeof head - 1) {
            size_t take = (size_t)got < sizeof head - 1 - received ? (size_t)got : sizeof head - 1 - received;
            memcpy(head + received, buffer, take);
        }
        received += (size_t)got;
    }
    alarm(0);
    CHECK(strncmp(head, first, strlen(first)) == 0, "an endless collection starts %s", head);
    CHECK(received >= (4u << 20), "an endless collection: %zu bytes out before its end", received);
    kill(reshaper, SIGKILL);
    kill(writer, SIGKILL);
    waitpid(reshaper, NULL, 0);
    waitpid(writer, NULL, 0);
    close(out[0]);
}

/* --- 3. A full disk and a file size limit -------------------------------------------------------- */

typedef struct writing {
    const char *in_path, *out_path;
    rlim_t file_size_limit; /* 0: none */
} writing;

static int apply_limited(void *argument, reshape_error *err) {
    writing *job = argument;
    if (job->file_size_limit) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit limit = {job->file_size_limit, job->file_size_limit};
        if (setrlimit(RLIMIT_FSIZE, &limit) != 0) return -2;
    }
    reshape_rules *rules = NULL;
    if (reshape_rules_new(RULES, strlen(RULES), &rules, err) != RESHAPE_OK) return -1;
    int status = reshape_apply_file(rules, job->in_path, job->out_path, 0, NULL, err);
    reshape_rules_free(rules);
    return status;
}

static void expect_write_failure(const char *what, const char *dir, const char *out_path, outcome result, int expected_errno) {
    CHECK(result.signal == 0 && result.exited && result.status == RESHAPE_IO_ERROR, "%s: signal %d, status %d: %s", what,
          result.signal, result.status, result.err.message);
    char expected[8192];
    snprintf(expected, sizeof expected, "io_error: cannot write output file '%s': %s", out_path, strerror(expected_errno));
    CHECK(strcmp(result.err.message, expected) == 0, "%s: %s", what, result.err.message);
    CHECK(result.err.sys_errno == expected_errno && result.err.io_file == RESHAPE_IO_OUTPUT, "%s: errno %d, io_file %d", what,
          result.err.sys_errno, result.err.io_file);
    size_t old_length = 0;
    char *old = read_file(out_path, &old_length);
    CHECK(old && strcmp(old, "old") == 0, "%s: the output file was touched", what);
    free(old);
    CHECK(count_entries(dir) == 2 || strstr(dir, "tmpfs") != NULL, "%s: files left behind", what);
}

static void test_full_disk(void) {
    char dir[2048], in_path[4096], out_path[4096];
    snprintf(dir, sizeof dir, "%s/limited", root);
    mkdir(dir, 0755);
    snprintf(in_path, sizeof in_path, "%s/in.json", dir);
    snprintf(out_path, sizeof out_path, "%s/out.json", dir);
    size_t length = 0;
    char *input = payload(40000, &length); /* 3 MB in, about as much out */
    write_file(in_path, input, length);
    write_file(out_path, "old", 3);

    /* A file size limit: writing past it is EFBIG once SIGXFSZ is ignored. */
    writing limited = {in_path, out_path, 1 << 20};
    expect_write_failure("RLIMIT_FSIZE", dir, out_path, in_child(apply_limited, &limited, 60), EFBIG);

    /* A full disk: a tmpfs of 1 MiB, where the system lets this process mount one. */
    char mount_point[2048], full_out[4096];
    snprintf(mount_point, sizeof mount_point, "%s/tmpfs", root);
    mkdir(mount_point, 0755);
    if (geteuid() != 0 || mount("reshape-test", mount_point, "tmpfs", 0, "size=1m") != 0) {
        printf("full disk: skipped (%s)\n", geteuid() != 0 ? "not root" : strerror(errno));
        free(input);
        return;
    }
    snprintf(full_out, sizeof full_out, "%s/out.json", mount_point);
    write_file(full_out, "old", 3);
    writing full = {in_path, full_out, 0};
    expect_write_failure("a full disk", mount_point, full_out, in_child(apply_limited, &full, 60), ENOSPC);
    CHECK(count_entries(mount_point) == 1, "a full disk: files left behind in the tmpfs");
    umount2(mount_point, MNT_DETACH);
    free(input);
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    snprintf(root, sizeof root, "%s/reshape-faults-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    test_changing_input();
    test_endless_input();
    test_full_disk();
    char command[8192];
    snprintf(command, sizeof command, "rm -rf '%s'", root);
    if (system(command) != 0) fprintf(stderr, "could not remove %s\n", root);
    return test_exit_status("test_faults");
}
