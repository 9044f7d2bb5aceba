#include "samples.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sample *samples = NULL;
size_t sample_count = 0;

static char *read_whole(const char *path, size_t *length) {
    FILE *file = fopen(path, "rb");
    if (!file) return NULL;
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    char *bytes = malloc((size_t)size + 1);
    if (bytes && fread(bytes, 1, (size_t)size, file) != (size_t)size) {
        free(bytes);
        bytes = NULL;
    }
    fclose(file);
    if (bytes) bytes[size] = '\0', *length = (size_t)size;
    return bytes;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void samples_load(void) {
    DIR *directory = opendir(RESHAPE_FIXTURES);
    if (!directory) {
        fprintf(stderr, "samples: cannot open %s\n", RESHAPE_FIXTURES);
        abort();
    }
    char *names[4096];
    size_t count = 0;
    struct dirent *entry;
    while ((entry = readdir(directory)) && count < 4096) {
        if (entry->d_name[0] != '.') names[count++] = strdup(entry->d_name);
    }
    closedir(directory);
    qsort(names, count, sizeof *names, by_name);
    samples = calloc(count, sizeof *samples);
    for (size_t index = 0; index < count; index++) {
        char path[4096];
        sample *s = &samples[sample_count];
        snprintf(path, sizeof path, "%s/%s/rules.json", RESHAPE_FIXTURES, names[index]);
        s->rules = read_whole(path, &s->rules_length);
        snprintf(path, sizeof path, "%s/%s/input.json", RESHAPE_FIXTURES, names[index]);
        s->input = read_whole(path, &s->input_length);
        if (s->rules && s->input) sample_count++;
        free(names[index]);
    }
}
