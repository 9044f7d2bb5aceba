/* Reshapes a Firebase response with a rules document, using the installed libreshape.
 *
 *     firebase_users RULES.json RESPONSE.json
 *
 * prints the reshaped JSON, indented, or the error on stderr with exit status 1. */
#include <reshape.h>
#include <stdio.h>
#include <stdlib.h>

static char *read_all(const char *path, size_t *length) {
    FILE *file = fopen(path, "rb");
    if (!file) return NULL;
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    rewind(file);
    char *data = size >= 0 ? malloc((size_t)size + 1) : NULL;
    *length = data ? fread(data, 1, (size_t)size, file) : 0;
    fclose(file);
    return data;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s RULES.json RESPONSE.json\n", argv[0]);
        return 2;
    }
    size_t spec_length = 0, input_length = 0;
    char *spec = read_all(argv[1], &spec_length);
    char *input = read_all(argv[2], &input_length);
    if (!spec || !input) {
        fprintf(stderr, "cannot read %s\n", spec ? argv[2] : argv[1]);
        return 2;
    }

    reshape_rules *rules = NULL;
    reshape_error err;
    reshape_status status = reshape_rules_new(spec, spec_length, &rules, &err);
    if (status == RESHAPE_OK) {
        char *out = NULL;
        size_t out_length = 0;
        status = reshape_apply(rules, input, input_length, RESHAPE_PRETTY, &out, &out_length, &err);
        if (status == RESHAPE_OK) {
            fwrite(out, 1, out_length, stdout);
            putchar('\n');
            reshape_free(out);
        }
        reshape_rules_free(rules);
    }
    if (status != RESHAPE_OK) fprintf(stderr, "firebase_users: %s\n", err.message);
    free(spec);
    free(input);
    return status == RESHAPE_OK ? 0 : 1;
}
